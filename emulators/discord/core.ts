import { EventEmitter } from 'node:events';
import { ApplicationFlags, GatewayIntentBits, PermissionFlagsBits } from 'discord-api-types/v10';
import type {
  APIApplicationCommand,
  APIGuild,
  APIInteraction,
  APIUser,
  GatewayDispatchPayload,
  InteractionResponseType,
  Snowflake,
} from 'discord-api-types/v10';
import { DiscordErrors } from './errors.js';
import type { UploadedFile } from './body.js';
import { isEmptyMessage, MessageFactory } from './messages.js';
import { RateLimiter } from './ratelimit.js';
import { Signal } from './signal.js';
import { SnowflakeGenerator } from './snowflake.js';
import { messagePayloadErrors, messagePayloadSchema, parseBody, throwFieldErrors } from './validation.js';
import type { MessagePayload } from './validation.js';
import type { InteractionState } from './interactions.js';
import { World } from './world.js';
import type { EmulatedMessage, EmulatorChannel } from './world.js';

/** One REST request as the emulator saw and answered it. */
export interface RequestRecord {
  method: string;
  /** The path after `/api/v10`, e.g. `/channels/123/messages`. */
  path: string;
  /** The route template, e.g. `/channels/:channelId/messages`; `null` for an unknown route. */
  route: string | null;
  status: number;
  /** Discord's JSON error code for an error answer. */
  code?: number;
  at: number;
}

export interface CallbackEvent {
  interactionId: Snowflake;
  type: InteractionResponseType;
  data: unknown;
}

/** A request about an interaction that the emulator refused, with Discord's answer. */
export interface RefusedRequest {
  interactionId: Snowflake;
  method: string;
  path: string;
  status: number;
  code: number;
  message: string;
  /** Milliseconds since the interaction was created, on the emulator's clock. */
  ageMs: number;
}

export interface DiscordEmulatorEvents {
  request: [RequestRecord];
  rateLimited: [RequestRecord];
  callback: [CallbackEvent];
  refused: [RefusedRequest];
  interaction: [APIInteraction];
  message: [EmulatedMessage];
  messageUpdate: [EmulatedMessage];
  messageDelete: [{ id: Snowflake; channelId: Snowflake }];
  commands: [{ guildId: Snowflake | null; commands: APIApplicationCommand[] }];
  identify: [{ sessionId: string; shard: [number, number] }];
  resume: [{ sessionId: string }];
  internalError: [Error];
}

/** A dispatch before the gateway gives it its sequence number. */
export type UnsequencedDispatch = WithoutSequence<GatewayDispatchPayload>;
type WithoutSequence<T> = T extends unknown ? Omit<T, 's'> : never;

/** What a route handler answers on success. */
export interface RouteResult {
  status: number;
  body?: unknown;
  /** Bytes served as they are (attachments), instead of a JSON body. */
  raw?: { contentType: string; data: Buffer };
}

/** What the REST side and the driver need from the gateway. */
export interface GatewayLink {
  /**
   * Sends a dispatch to every session whose shard holds the guild and that asked for all of
   * `requiredIntents`; returns how many got it.
   */
  dispatchToGuild(guildId: Snowflake, payload: UnsequencedDispatch, requiredIntents?: number): number;
  /** Sessions (connected or waiting to resume) whose shard holds the guild. */
  sessionCountForGuild(guildId: Snowflake): number;
  /** Sends a dispatch about direct messages: Discord sends those on shard 0. */
  dispatchToDms(payload: UnsequencedDispatch): number;
  /** Sessions of shard 0, which gets direct messages. */
  sessionCountForDms(): number;
}

/** The intents an application must enable in the developer portal before it may ask for them. */
export const PRIVILEGED_INTENTS =
  GatewayIntentBits.GuildMembers | GatewayIntentBits.GuildPresences | GatewayIntentBits.MessageContent;

/**
 * The application flag each privileged intent sets once enabled. An unverified application (under
 * 100 servers) gets the `…Limited` flags, which is what a bot under development has.
 */
const PRIVILEGED_INTENT_FLAGS: readonly [intent: number, flag: number][] = [
  [GatewayIntentBits.GuildPresences, ApplicationFlags.GatewayPresenceLimited],
  [GatewayIntentBits.GuildMembers, ApplicationFlags.GatewayGuildMembersLimited],
  [GatewayIntentBits.MessageContent, ApplicationFlags.GatewayMessageContentLimited],
];

export interface CoreOptions {
  applicationId: Snowflake;
  /** A bitfield of the privileged intents the application has enabled. */
  privilegedIntents: number;
  botToken: string | undefined;
  interactionDeadlineMs: number;
  interactionTokenTtlMs: number;
  nonceWindowMs: number;
  now: () => number;
  /** Session starts (IDENTIFYs) left of Discord's daily 1,000 (see `sessionStarts`). */
  sessionStartsRemaining: number;
}

/**
 * The emulator's state and the operations both the REST routes and the test driver use. No
 * sockets here: the HTTP server and the gateway are wired to it by `startDiscordEmulator`.
 */
export class EmulatorCore {
  readonly ids: SnowflakeGenerator;
  readonly world: World;
  readonly messages: MessageFactory;
  readonly signal = new Signal();
  readonly events = new EventEmitter<DiscordEmulatorEvents>();
  readonly rateLimiter = new RateLimiter();
  readonly requests: RequestRecord[] = [];
  readonly interactions = new Map<Snowflake, InteractionState>();
  readonly interactionsByToken = new Map<string, InteractionState>();
  /**
   * Discord's daily limit on session starts: `remaining` goes down by one per IDENTIFY.
   * `tokenReset`: an IDENTIFY came with none left, and Discord reset the bot's token ("Upon hitting
   * this limit, all active sessions for the app will be terminated, the bot token will be reset",
   * Discord's gateway docs): the token the bot has is refused from then on.
   */
  readonly sessionStarts: { total: number; remaining: number; tokenReset: boolean };
  readonly botUser: APIUser;
  baseUrl = 'http://127.0.0.1';
  gateway: GatewayLink = {
    dispatchToGuild: () => 0,
    sessionCountForGuild: () => 0,
    dispatchToDms: () => 0,
    sessionCountForDms: () => 0,
  };

  constructor(readonly options: CoreOptions) {
    this.ids = new SnowflakeGenerator(options.now);
    this.sessionStarts = { total: 1_000, remaining: options.sessionStartsRemaining, tokenReset: false };
    this.botUser = {
      id: options.applicationId,
      username: 'emulated-bot',
      discriminator: '0',
      global_name: 'Emulated Bot',
      avatar: null,
      bot: true,
      verified: true,
      mfa_enabled: false,
    };
    this.world = new World(this.ids, this.botUser, () => this.options.now());
    this.messages = new MessageFactory(this.world, this.ids, () => this.baseUrl);
  }

  now(): number {
    return this.options.now();
  }

  /** The application's flags: those of the privileged intents it has enabled. */
  applicationFlags(): ApplicationFlags {
    let flags = 0;
    for (const [intent, flag] of PRIVILEGED_INTENT_FLAGS) {
      if ((this.options.privilegedIntents & intent) !== 0) flags |= flag;
    }
    return flags;
  }

  /**
   * Wakes waiters; call after every change tests may wait for. A change to an interaction's state
   * names the interaction, and only then are the waiters watching it woken (see `Signal`).
   */
  changed(interactionId?: Snowflake): void {
    this.signal.notify(interactionId);
  }

  // ------------------------------------------------------------ lookups that answer like Discord

  channelOrThrow(channelId: Snowflake): EmulatorChannel {
    const channel = this.world.channels.get(channelId);
    if (!channel) throw DiscordErrors.unknownChannel();
    return channel;
  }

  guildOrThrow(guildId: Snowflake): APIGuild {
    const guild = this.world.guilds.get(guildId);
    if (!guild) throw DiscordErrors.unknownGuild();
    // A server the bot is not in (the app added without its bot, or the bot removed): 403 / 50001
    // to every route of it, as to any channel there.
    if (!guild.botMember) throw DiscordErrors.missingAccess();
    return this.world.apiGuild(guild);
  }

  /** A channel messages can be created in: a guild channel or one of the bot's DM channels. */
  messageChannelOrThrow(channelId: Snowflake): { id: Snowflake; guild_id?: Snowflake } {
    const channel = this.world.channels.get(channelId) ?? this.world.dmChannels.get(channelId);
    if (!channel) throw DiscordErrors.unknownChannel();
    return channel;
  }

  botPermissions(channelId: Snowflake): bigint {
    return this.world.permissionsIn(channelId, this.botUser.id);
  }

  /** Without View Channel Discord answers 403 / 50001 Missing Access. */
  requireVisible(channelId: Snowflake): bigint {
    const permissions = this.botPermissions(channelId);
    if ((permissions & PermissionFlagsBits.ViewChannel) === 0n) throw DiscordErrors.missingAccess();
    return permissions;
  }

  // ------------------------------------------------------------ messages

  /** Parses and checks a message payload; errors are placed under `prefix` (e.g. `data`). */
  parseMessagePayload(json: unknown, prefix: (string | number)[] = []): MessagePayload {
    const payload = parseBody(messagePayloadSchema, json ?? {}, prefix);
    throwFieldErrors(messagePayloadErrors(payload), prefix);
    return payload;
  }

  /**
   * Applies Embed Links the way Discord does for channel messages: without it, embeds are dropped
   * from a message that has something else to show, and a message of embeds alone is refused.
   */
  applyEmbedPermission(
    payload: MessagePayload,
    permissions: bigint,
    files: readonly UploadedFile[],
  ): MessagePayload {
    if ((permissions & PermissionFlagsBits.EmbedLinks) !== 0n || !payload.embeds?.length) return payload;
    const hasOther =
      (payload.content ?? '') !== '' || (payload.components?.length ?? 0) > 0 || files.length > 0;
    if (!hasOther) throw DiscordErrors.missingPermissions();
    return { ...payload, embeds: [] };
  }

  /**
   * Keeps a message (new or edited) and tells listeners. `nonce`, for a new message, is the one it
   * was created with: the event carries it, as MESSAGE_CREATE does; an edit keeps the stored one.
   */
  storeMessage(message: EmulatedMessage, inChannel: boolean, nonce?: string | number): EmulatedMessage {
    const stored = this.world.messages.get(message.id);
    const kept = stored ? stored.nonce : nonce;
    this.world.putMessage({ message, inChannel, ...(kept === undefined ? {} : { nonce: kept }) });
    const event = stored ? 'messageUpdate' : 'message';
    if (this.events.listenerCount(event) > 0) {
      const copy = structuredClone(message);
      this.events.emit(event, stored || kept === undefined ? copy : { ...copy, nonce: kept });
    }
    this.changed();
    return message;
  }

  /** Replaces a stored message with its edited form, refusing an edit that leaves it empty. */
  replaceMessage(edited: EmulatedMessage): EmulatedMessage {
    if (isEmptyMessage(edited)) throw DiscordErrors.emptyMessage();
    const stored = this.world.messages.get(edited.id);
    return this.storeMessage(edited, stored?.inChannel ?? false);
  }

  deleteMessage(messageId: Snowflake): void {
    const stored = this.world.messages.get(messageId);
    if (!stored) return;
    this.world.deleteMessage(messageId);
    this.events.emit('messageDelete', { id: messageId, channelId: stored.message.channel_id });
    this.changed();
  }

  // ------------------------------------------------------------ interactions

  registerInteraction(state: InteractionState): void {
    this.interactions.set(state.id, state);
    this.interactionsByToken.set(state.token, state);
  }

  refuse(
    state: InteractionState,
    method: string,
    path: string,
    error: { status: number; code: number; message: string },
  ): void {
    const refused: RefusedRequest = {
      interactionId: state.id,
      method,
      path,
      status: error.status,
      code: error.code,
      message: error.message,
      ageMs: this.now() - state.createdAt,
    };
    state.refusals.push(refused);
    this.events.emit('refused', refused);
    this.changed(state.id);
  }
}
