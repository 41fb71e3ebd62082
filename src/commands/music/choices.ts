/**
 * Autocomplete for the music options. It cannot be deferred and must answer within 3 seconds, so
 * it answers from Keyv (recent albums and artists, a copy of the member's playlists and devices) or
 * from one quick call, and with nothing rather than an error.
 */
import type { SlashCommandStringOption } from '@discordjs/builders';
import type { AutocompleteInteraction } from 'discord.js';
import type { BotContext, MusicServices } from '../../bot/context.js';
import { CHOICE_MAX, choiceName, type ChoiceInput } from '../../bot/render/music-prompts.js';
import { deviceChoices } from '../../domain/music/player.js';
import { playlistChoices, usableFor, type PlaylistUse } from '../../domain/music/playlists.js';
import { getRecent, matchRecent, type RecentKind } from '../../domain/music/recent.js';
import { splitRefs } from '../../domain/music/refs.js';
import { parseMusicRef } from '../../services/music/index.js';
import { plural } from '../../bot/render/music-text.js';
import { nameContains } from '../../domain/text.js';
import { AUTOCOMPLETE_TIMEOUT_MS, depsOf, respondWith } from './shared.js';

async function recent(
  interaction: AutocompleteInteraction,
  ctx: BotContext,
  kind: RecentKind,
  typed: string,
) {
  const items = await getRecent(ctx.storage.ns('music-recent'), interaction.user.id, kind);
  return matchRecent(items, typed).map((item) => ({
    name: choiceName(item.name, item.detail),
    value: item.id,
  }));
}

/** One album or artist: the member's recent ones that match what they typed. */
export function recentChoices(kind: RecentKind) {
  return (interaction: AutocompleteInteraction, _music: MusicServices, ctx: BotContext) =>
    respondWith(interaction, () => recent(interaction, ctx, kind, interaction.options.getFocused()));
}

/**
 * A list of albums or artists: completes the entry being typed, keeping the links, URIs and ids
 * before it. What follows the last of those is searched as one name ("Noah Moreau", not "Moreau"
 * after an entry "Noah"): a word that is no reference never goes into a value, which the command
 * would refuse. Choices whose value would pass 100 characters are left out (the member can keep
 * typing links instead).
 */
export function recentListChoices(kind: RecentKind) {
  const type = kind === 'albums' ? 'album' : 'artist';
  return (interaction: AutocompleteInteraction, _music: MusicServices, ctx: BotContext) =>
    respondWith(interaction, async () => {
      const typed = interaction.options.getFocused();
      const parts = splitRefs(typed);
      // The last word is still being typed unless a separator follows it: a link or id pasted
      // alone is completed (to itself, from the recent ones), not followed by another item.
      const done = /[\s,]$/.test(typed) ? parts.length : parts.length - 1;
      let kept = 0;
      while (kept < done && parseMusicRef(parts[kept]!, type) !== undefined) kept += 1;
      const before = parts.slice(0, kept);
      const prefix = before.length === 0 ? '' : `${before.join(', ')}, `;
      const choices = await recent(interaction, ctx, kind, parts.slice(kept).join(' '));
      return choices
        .filter(
          (choice) => prefix.length + choice.value.length <= CHOICE_MAX && !before.includes(choice.value),
        )
        .map((choice) => ({
          name: prefix === '' ? choice.name : `… + ${choice.name}`,
          value: prefix + choice.value,
        }));
    });
}

/** The `playlist` option of the playlist edits, answered by {@link editablePlaylistChoices}. */
export const myPlaylistOption = (option: SlashCommandStringOption) =>
  option.setName('playlist').setDescription('One of your playlists').setRequired(true).setAutocomplete(true);

/**
 * The member's playlists whose name matches: every one in their list (owned and followed) that
 * `/music playlist view` can show for viewing, only those they may change (theirs and collaborative
 * ones) for the edits (see `usableFor`).
 */
const playlistSuggestions =
  (use: PlaylistUse) =>
  async (interaction: AutocompleteInteraction, music: MusicServices, ctx: BotContext): Promise<void> => {
    await respondWith(interaction, async (): Promise<ChoiceInput[]> => {
      if ((await music.linking.getLink(interaction.user.id)) === undefined) return [];
      const focused = interaction.options.getFocused().trim();
      // A pasted link, URI or id finds its playlist (ids are case-sensitive: matched as typed).
      const pasted = parseMusicRef(focused, 'playlist');
      const playlists = await playlistChoices(
        depsOf(music, ctx),
        interaction.user.id,
        AUTOCOMPLETE_TIMEOUT_MS,
      );
      return playlists
        .filter(
          (playlist) =>
            usableFor(playlist, use) && (nameContains(playlist.name, focused) || playlist.id === pasted),
        )
        .map((playlist) => ({
          name: choiceName(
            playlist.name,
            [
              playlist.total === null ? undefined : plural(playlist.total, 'item'),
              playlist.owner ?? undefined,
            ]
              .filter((part) => part !== undefined)
              .join(' · '),
          ),
          value: playlist.id,
        }));
    });
  };

/** `/music playlist view`: every playlist in the member's list that it can show. */
export const myPlaylistChoices = playlistSuggestions('view');

/** The playlist edits: the member's own playlists and collaborative ones. */
export const editablePlaylistChoices = playlistSuggestions('edit');

/** The member's controllable devices whose name matches. */
export async function myDeviceChoices(
  interaction: AutocompleteInteraction,
  music: MusicServices,
  ctx: BotContext,
): Promise<void> {
  await respondWith(interaction, async (): Promise<ChoiceInput[]> => {
    if ((await music.linking.getLink(interaction.user.id)) === undefined) return [];
    const typed = interaction.options.getFocused();
    const devices = await deviceChoices(depsOf(music, ctx), interaction.user.id, AUTOCOMPLETE_TIMEOUT_MS);
    return devices
      .filter((device) => !device.restricted && nameContains(device.name, typed))
      .map((device) => ({ name: choiceName(device.name), value: device.id }));
  });
}
