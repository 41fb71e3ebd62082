import { MessageFlags, type ButtonInteraction } from 'discord.js';
import {
  albumButton,
  cancelButton,
  playerButton,
  playlistPageButton,
  removeConfirmButton,
  replaceConfirmButton,
} from '../../bot/render/music-ids.js';
import { renderAlbum } from '../../bot/render/music-catalog.js';
import { renderLibraryChange } from '../../bot/render/music-library.js';
import { md } from '../../bot/render/music-text.js';
import { playerStatus, renderPlayerPanel } from '../../bot/render/player.js';
import { renderCancelled, renderConfirmationEnded, renderPlaylistPage } from '../../bot/render/playlist.js';
import type { ButtonHandler } from '../../bot/types.js';
import { getAlbumSummary } from '../../domain/music/catalog.js';
import { removeAlbumsFromLibrary, saveAlbumsToLibrary } from '../../domain/music/library.js';
import { listDevices, pausePlayback, skipToNext } from '../../domain/music/player.js';
import {
  NotYourPlaylistError,
  PlaylistGoneError,
  RefusedConfirmationError,
  StaleConfirmationError,
} from '../../domain/music/errors.js';
import {
  getPlaylistPage,
  removePlaylistItems,
  replacePlaylistItems,
  type PlaylistEdit,
} from '../../domain/music/playlists.js';
import { ALBUM_PAGES, depsOf, ensureLinked, ensureOwner, marketOf, musicButton, showEdit } from './shared.js';

const album = musicButton(albumButton, async (interaction, state, music, ctx) => {
  const deps = depsOf(music, ctx);
  if (state.action === 'save' || state.action === 'remove') {
    // Anyone who sees the album may save it to (or remove it from) their own library.
    if (!(await ensureLinked(interaction, music))) return;
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const shownName = interaction.message.embeds[0]?.title;
    const change = await (state.action === 'save' ? saveAlbumsToLibrary : removeAlbumsFromLibrary)(
      deps,
      interaction.user.id,
      state.album,
      new Map(shownName ? [[state.album, shownName]] : []),
    );
    await interaction.editReply(renderLibraryChange(change));
    return;
  }
  if (!(await ensureOwner(interaction, state.owner, 'album view', ALBUM_PAGES))) return;
  await interaction.deferUpdate();
  const summary = await getAlbumSummary(deps, state.album, await marketOf(music, state.owner));
  await interaction.editReply(renderAlbum(summary, { ownerId: state.owner, page: state.page }));
});

const player = musicButton(playerButton, async (interaction, state, music, ctx) => {
  if (!(await ensureOwner(interaction, state.owner, 'player panel'))) return;
  await interaction.deferUpdate();
  const deps = depsOf(music, ctx);
  const target = state.device === '' ? undefined : state.device;
  if (state.action === 'pause' || state.action === 'next') {
    const outcome = await (state.action === 'pause' ? pausePlayback : skipToNext)(
      deps,
      state.owner,
      target,
      'panel',
    );
    await interaction.editReply(
      renderPlayerPanel({
        ownerId: state.owner,
        devices: outcome.devices,
        targetId: target,
        status: playerStatus(outcome),
      }),
    );
    return;
  }
  const devices = await listDevices(deps, state.owner);
  const chosen = state.action === 'device' ? devices.find((device) => device.id === target) : undefined;
  await interaction.editReply(
    renderPlayerPanel({
      ownerId: state.owner,
      devices,
      targetId: target,
      status:
        chosen === undefined
          ? state.action === 'device'
            ? 'That device is gone: the buttons act on your active device.'
            : undefined
          : `The buttons now act on ${md(chosen.name, 100)}.`,
    }),
  );
});

const playlistPage = musicButton(playlistPageButton, async (interaction, state, music, ctx) => {
  if (!(await ensureOwner(interaction, state.owner, 'playlist view'))) return;
  await interaction.deferUpdate();
  const deps = depsOf(music, ctx);
  const page = await getPlaylistPage(
    deps,
    state.owner,
    state.playlist,
    state.page,
    state.nav === 'last',
  ).catch(async (error: unknown) => {
    // Its pages can no longer be turned: the message keeps what it shows, without the buttons
    // that would fail each time; the member is told why (the error, answered privately).
    if (error instanceof PlaylistGoneError)
      await interaction.editReply({ components: [] }).catch(() => undefined);
    throw error;
  });
  await interaction.editReply(renderPlaylistPage(page, { ownerId: state.owner }));
});

const confirmRemoval = musicButton(removeConfirmButton, async (interaction, state, music, ctx) => {
  if (!(await ensureOwner(interaction, state.owner, 'confirmation'))) return;
  await interaction.deferUpdate();
  const edit = await endsPrompt(
    interaction,
    removePlaylistItems(
      depsOf(music, ctx),
      state.owner,
      state.playlist,
      state.from,
      state.count,
      state.check,
    ),
  );
  if (edit !== undefined) await showEdit(interaction, edit, state.owner, ctx);
});

const confirmReplacement = musicButton(replaceConfirmButton, async (interaction, state, music, ctx) => {
  if (!(await ensureOwner(interaction, state.owner, 'confirmation'))) return;
  await interaction.deferUpdate();
  const edit = await endsPrompt(
    interaction,
    replacePlaylistItems(depsOf(music, ctx), state.owner, state.playlist, state.token),
  );
  if (edit !== undefined) await showEdit(interaction, edit, state.owner, ctx);
});

/**
 * A confirmation that can no longer be made (the playlist changed, or it expired, or it is not the
 * member's to change, or the service refused its items) ends its prompt: the prompt says why,
 * without its buttons, rather than keeping a button that fails each time and a text ("Nothing
 * changes until then") that is no longer so. Other failures are answered as usual.
 */
async function endsPrompt(
  interaction: ButtonInteraction,
  edit: Promise<PlaylistEdit>,
): Promise<PlaylistEdit | undefined> {
  try {
    return await edit;
  } catch (error) {
    // A playlist the member turns out not to be able to change (a collaborative one they only
    // follow: the service refuses the edit) ends the prompt as well: pressing again cannot work.
    const ended =
      error instanceof StaleConfirmationError ||
      error instanceof NotYourPlaylistError ||
      error instanceof RefusedConfirmationError;
    if (!ended) throw error;
    await interaction.editReply(renderConfirmationEnded(error.userMessage));
    return undefined;
  }
}

const cancel = musicButton(cancelButton, async (interaction, state) => {
  if (!(await ensureOwner(interaction, state.owner, 'confirmation'))) return;
  await interaction.update(renderCancelled(state.kind));
});

/** Buttons of the music replies (player panel, album, playlist pages), by custom-id prefix. */
export const musicButtons: readonly ButtonHandler[] = [
  album,
  player,
  playlistPage,
  confirmRemoval,
  confirmReplacement,
  cancel,
];
