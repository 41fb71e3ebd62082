import type { MusicServices } from '../../bot/context.js';
import { commandGroup, type Subcommand } from '../../bot/subcommands.js';
import link from './link.js';
import status from './status.js';
import unlink from './unlink.js';

const subcommands: readonly Subcommand<MusicServices>[] = [link, unlink, status];

export default commandGroup({
  name: 'music',
  description: 'Your music account: albums, artists, playlists and playback',
  requires: 'music',
  services: (ctx) => ctx.music,
  subcommands,
});
