/**
 * What every music subcommand and button shares: the domain dependencies, the "link first" check,
 * owner-only buttons, and answering expected problems privately (ephemeral), whatever the state of
 * the interaction.
 */
import {
  MessageFlags,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type User,
} from 'discord.js';
import type { DiscordAccount } from '../../auth/states.js';
import { NotLinkedError, RelinkRequiredError } from '../../auth/tokens.js';
import { VaultError } from '../../auth/vault.js';
import type { BotContext, MusicServices } from '../../bot/context.js';
import type { CustomIdCodec } from '../../bot/custom-id.js';
import { describeForUser, featureOffError } from '../../bot/errors.js';
import { answerPrivately } from '../../bot/private-answer.js';
import { langOf } from '../../bot/i18n/index.js';
import type { MusicMessage } from '../../bot/render/music-components.js';
import { clip, CONTENT_MAX } from '../../bot/render/music-text.js';
import { renderLinkNeeded, toChoices, type ChoiceInput } from '../../bot/render/music-prompts.js';
import { renderDevices } from '../../bot/render/player.js';
import type { ButtonHandler } from '../../bot/types.js';
import type { MusicDeps } from '../../domain/music/deps.js';
import {
  isPrivatePlaylist,
  knownPrivate,
  type PlaylistEdit,
  type PlaylistHead,
  type PlaylistUse,
} from '../../domain/music/playlists.js';
import { within } from '../../domain/music/cache.js';
import { editNote, renderPlaylistEdit } from '../../bot/render/playlist.js';
import { listDevices } from '../../domain/music/player.js';
import { ownerNotice } from '../../logger.js';
import { UpstreamError } from '../../services/http/errors.js';
import {
  AppCredentialsError,
  InsufficientScopeError,
  MusicAuthError,
  NoActiveDeviceError,
  NotFoundError,
  PlayerError,
} from '../../services/music/index.js';

/**
 * The service's refusals that are about the member's own input or account (an id that does not
 * exist, no premium, no active device, a link to renew): the member is told, and the owner's log
 * does not count them as service trouble. A member not on the app's user list stays a warning: only
 * the owner can add them.
 */
function isMembersOwn(error: unknown): boolean {
  return (
    error instanceof NotFoundError ||
    error instanceof PlayerError ||
    error instanceof MusicAuthError ||
    error instanceof InsufficientScopeError
  );
}

/** Autocomplete cannot be deferred: an upstream call gets this long, then the cache or nothing answers. */
export const AUTOCOMPLETE_TIMEOUT_MS = 1_500;

export function depsOf(music: MusicServices, ctx: BotContext): MusicDeps {
  return {
    client: music.client,
    cache: ctx.storage.ns('music-cache'),
    recent: ctx.storage.ns('music-recent'),
  };
}

/**
 * The member's market (their account's country), when the link knows it. Album and artist lookups
 * use the bot's own token and need no link: when linking is off (no encryption key), the member's
 * link cannot be read, or storage fails, they show the service's default market instead of failing.
 */
export async function marketOf(music: MusicServices, userId: string): Promise<string | undefined> {
  return (await music.linking.getLink(userId).catch(() => undefined))?.country;
}

type Answerable = ChatInputCommandInteraction | ButtonInteraction;

/**
 * Shows `message` to the member only (see `answerPrivately`: a public deferred reply becomes a
 * neutral line, the message follows ephemerally, and the line is removed; a prompt with buttons is
 * never shown in the line's place).
 */
export async function sendPrivately(
  interaction: Answerable,
  message: MusicMessage,
  inPlaceOfRich?: string,
): Promise<void> {
  const payload = {
    ...(message.content === undefined ? {} : { content: clip(message.content, CONTENT_MAX) }),
    embeds: message.embeds,
    components: message.components,
  };
  await answerPrivately(interaction, payload, inPlaceOfRich);
}

/** Whether a reply made now would be the interaction's own first message (so linking can edit it). */
function nextReplyIsOriginal(interaction: Answerable): boolean {
  if (!interaction.deferred && !interaction.replied) return true;
  return (
    interaction.isChatInputCommand() &&
    interaction.deferred &&
    !interaction.replied &&
    interaction.ephemeral === true
  );
}

/** How the link's start page names the member, so whoever opens it sees who gets access. */
export function discordAccount(user: Pick<User, 'username' | 'globalName'>): DiscordAccount {
  return { username: user.username, ...(user.globalName ? { displayName: user.globalName } : {}) };
}

async function linkPrompt(
  interaction: Answerable,
  music: MusicServices,
  reason: string,
): Promise<MusicMessage> {
  const notify = nextReplyIsOriginal(interaction)
    ? { applicationId: interaction.applicationId, interactionToken: interaction.token }
    : undefined;
  const url = await music.linking.startLink(interaction.user.id, {
    account: discordAccount(interaction.user),
    notify,
  });
  return renderLinkNeeded(url, reason);
}

/**
 * Answers an expected problem privately and returns true; false for anything else, which the
 * router then logs and answers generically. Not linked (or a dead link) comes with the link button,
 * no active device with the device list.
 */
export async function answerProblem(
  interaction: Answerable,
  error: unknown,
  music: MusicServices,
  ctx: BotContext,
): Promise<boolean> {
  // A link the vault cannot read: the router answers it and tells the owner why.
  if (error instanceof VaultError) return false;
  // The music service's own sentences are English for now; the router's words follow the member.
  const text = describeForUser(error, langOf(interaction.locale));
  if (text === undefined) return false;
  let message: MusicMessage = { content: text, embeds: [], components: [] };
  if (
    error instanceof NotLinkedError ||
    error instanceof RelinkRequiredError ||
    error instanceof MusicAuthError ||
    error instanceof InsufficientScopeError
  ) {
    message = await linkPrompt(interaction, music, text);
  } else if (error instanceof NoActiveDeviceError) {
    const devices = await listDevices(depsOf(music, ctx), interaction.user.id).catch(() => undefined);
    if (devices !== undefined) message = { ...renderDevices(devices), content: text };
  }
  const context = { userId: interaction.user.id, interactionId: interaction.id, message: text };
  // The owner's to mend or to know of, and met by every member's command alike: once a minute at
  // its level, repeats within the minute at debug.
  if (error instanceof AppCredentialsError) {
    ctx.logger[ownerNotice(ctx.logger, 'music:credentials') ? 'error' : 'debug'](
      { err: error, ...context },
      'the music service refuses the app’s client credentials: check MUSIC_CLIENT_ID and MUSIC_CLIENT_SECRET',
    );
  } else if (error instanceof UpstreamError && !isMembersOwn(error)) {
    ctx.logger[ownerNotice(ctx.logger, `music:${error.name}`) ? 'warn' : 'debug'](
      { err: error, ...context },
      'music service trouble (repeats within a minute are logged at debug)',
    );
  } else ctx.logger.debug(context, 'music user error');
  await sendPrivately(interaction, message);
  return true;
}

/**
 * Checks for a linked account before anything is deferred; if there is none, answers with the link
 * button (the message turns into "linked" once done) and returns false.
 */
export async function ensureLinked(interaction: Answerable, music: MusicServices): Promise<boolean> {
  const userId = interaction.user.id;
  if ((await music.linking.getLink(userId)) !== undefined) return true;
  const missing = await music.linking.missingLink(userId);
  const text = missing instanceof RelinkRequiredError ? missing.message : 'This needs your music account.';
  await sendPrivately(interaction, await linkPrompt(interaction, music, text));
  return false;
}

/** What the note to someone else's press says: what only the owner may do, and how to get one's own. */
export interface OwnerOnly {
  /** `use its buttons`, `turn its pages`. */
  only: string;
  /** The next step for whoever pressed. */
  yours: string;
}

const ANY_BUTTON: OwnerOnly = {
  only: 'use its buttons',
  yours: 'Run the command yourself to get your own.',
};

/**
 * The album view's page turns: its Save and Remove act for whoever presses them, so the note names
 * only the pages.
 */
export const ALBUM_PAGES: OwnerOnly = {
  only: 'turn its pages',
  yours: 'Run `/music album` with this album to page through it yourself.',
};

/** Buttons that act for the member who ran the command: anyone else gets a private note. */
export async function ensureOwner(
  interaction: ButtonInteraction,
  owner: string,
  what: string,
  note: OwnerOnly = ANY_BUTTON,
): Promise<boolean> {
  if (interaction.user.id === owner) return true;
  await interaction.reply({
    content: `This is <@${owner}>’s ${what}: only they can ${note.only}. ${note.yours}`,
    flags: MessageFlags.Ephemeral,
    allowedMentions: { parse: [] },
  });
  return false;
}

type Execute = (
  interaction: ChatInputCommandInteraction,
  music: MusicServices,
  ctx: BotContext,
) => Promise<void>;

/** A subcommand's `execute` whose expected problems are answered privately. */
export function guarded(run: Execute): Execute {
  return async (interaction, music, ctx) => {
    try {
      await run(interaction, music, ctx);
    } catch (error) {
      if (!(await answerProblem(interaction, error, music, ctx))) throw error;
    }
  };
}

/** A button handler for one custom-id codec: the state is validated before `handle` sees it. */
export function musicButton<T>(
  codec: CustomIdCodec<T>,
  handle: (interaction: ButtonInteraction, state: T, music: MusicServices, ctx: BotContext) => Promise<void>,
): ButtonHandler {
  return {
    prefix: codec.prefix,
    requires: 'music',
    async handle(interaction, ctx, args) {
      const music = ctx.music;
      if (music === undefined) throw featureOffError('music', interaction.locale);
      const state = codec.decode(args);
      try {
        await handle(interaction, state, music, ctx);
      } catch (error) {
        if (!(await answerProblem(interaction, error, music, ctx))) throw error;
      }
    },
  };
}

/** Answers autocomplete with what `choices` finds, or with nothing when it fails. */
export async function respondWith(
  interaction: AutocompleteInteraction,
  choices: () => Promise<readonly ChoiceInput[]>,
): Promise<void> {
  let found: readonly ChoiceInput[] = [];
  try {
    found = await choices();
  } catch {
    found = [];
  }
  await interaction.respond(toChoices(found));
}

/** How long a command waits on storage to learn whether its playlist is private, before it acknowledges. */
const PRIVACY_LOOKUP_MS = 250;

/**
 * Acknowledges a command about `playlist`: in private when the bot already knows the playlist is
 * private (`knownPrivate`: from the suggestions' copy or a recent view), so the channel sees not even
 * "thinking…"; in public otherwise, and {@link showPlaylistMessage} answers privately if the
 * playlist turns out private. Storage that does not answer within {@link PRIVACY_LOOKUP_MS} counts
 * as not knowing.
 */
export async function deferForPlaylist(
  interaction: ChatInputCommandInteraction,
  music: MusicServices,
  ctx: BotContext,
  playlist: string,
  use: PlaylistUse,
): Promise<void> {
  const lookup = knownPrivate(depsOf(music, ctx), interaction.user.id, playlist, use).catch(() => false);
  const hidden = (await within(lookup, PRIVACY_LOOKUP_MS)) === true;
  await interaction.deferReply(hidden ? { flags: MessageFlags.Ephemeral } : {});
}

/** The line above a private playlist's answer, which only the member sees. */
export const PRIVATE_PLAYLIST_NOTE = '🔒 This playlist is private, so I did not show it in the channel.';

/**
 * Answers a command about a playlist with `message`. A private playlist (the service's `public:
 * false`; a collaborative one is always private) is shown to the member alone, with
 * {@link PRIVATE_PLAYLIST_NOTE}: its name and items are theirs and their collaborators', and a
 * command run in a channel would otherwise post them there. Acknowledged in private
 * ({@link deferForPlaylist} knew), the answer takes the acknowledgement's place; acknowledged in
 * public, it goes through `answerPrivately` (the "thinking…" line becomes a neutral line, then
 * goes). A playlist known private that has since been made public is still answered in private,
 * without the note. A button answers in its own message, which is private already when the command
 * was.
 */
export async function showPlaylistMessage(
  interaction: ChatInputCommandInteraction | ButtonInteraction,
  head: Pick<PlaylistHead, 'public' | 'collaborative'>,
  message: MusicMessage,
  /** For the result of a change: what the channel's line says if the private answer cannot follow. */
  madeNote?: string,
): Promise<void> {
  if (!isPrivatePlaylist(head) || !interaction.isChatInputCommand()) {
    await interaction.editReply(message);
    return;
  }
  const content = [PRIVATE_PLAYLIST_NOTE, message.content].filter(Boolean).join('\n');
  await sendPrivately(interaction, { ...message, content }, madeNote);
}

/**
 * Shows the result of a playlist edit. A page that could not be read just after the edit is noted
 * in the log: the edit stands, and the member is shown what was done with a button to see it.
 */
export async function showEdit(
  interaction: ChatInputCommandInteraction | ButtonInteraction,
  edit: PlaylistEdit,
  ownerId: string,
  ctx: BotContext,
): Promise<void> {
  if (edit.pageError !== undefined)
    ctx.logger.warn(
      { err: edit.pageError, playlistId: edit.head.id, edit: edit.kind },
      'a playlist edit was made, but the page that shows it could not be read',
    );
  // Made already: should the private answer fail, the channel's line says so (with nothing of the
  // playlist's), rather than "run the command again", which would make the change twice.
  const made = `${editNote(edit)} I could not show you the playlist privately here: see it with /music playlist view.`;
  await showPlaylistMessage(interaction, edit.head, renderPlaylistEdit(edit, ownerId), made);
}
