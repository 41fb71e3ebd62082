import type { MusicServices } from '../../bot/context.js';
import { commandGroup, type Subcommand } from '../../bot/subcommands.js';
import album from './album.js';
import artist from './artist.js';
import artists from './artists.js';
import devices from './devices.js';
import { libraryRemove, librarySave } from './library.js';
import link from './link.js';
import { next, pause } from './playback.js';
import player from './player.js';
import playlistAdd from './playlist-add.js';
import playlistMove from './playlist-move.js';
import playlistRemove from './playlist-remove.js';
import playlistReplace from './playlist-replace.js';
import playlistView from './playlist-view.js';
import status from './status.js';
import unlink from './unlink.js';

const subcommands: readonly Subcommand<MusicServices>[] = [
  link,
  unlink,
  status,
  album,
  artist,
  artists,
  librarySave,
  libraryRemove,
  devices,
  player,
  pause,
  next,
  playlistView,
  playlistAdd,
  playlistMove,
  playlistRemove,
  playlistReplace,
];

export default commandGroup({
  name: 'music',
  description: 'Your music account: albums, artists, playlists and playback',
  groups: {
    library: 'Save albums to your library, or remove them',
    playlist: 'Page through your playlists and edit them',
  },
  requires: 'music',
  services: (ctx) => ctx.music,
  subcommands,
});
