import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GatewayDispatchEvents,
  GatewayIntentBits,
  GatewayOpcodes,
  Locale,
  OverwriteType,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import type {
  APIApplicationCommand,
  APIAttachment,
  APIGuild,
  APIUser,
  Snowflake,
} from 'discord-api-types/v10';
import { EmulatorCore } from './core.js';
import type { DiscordEmulatorEvents, RequestRecord } from './core.js';
import { Gateway } from './gateway.js';
import type { ConnectedShard } from './gateway.js';
import { InteractionDriver, toLocale } from './interactions.js';
import type {
  AutocompleteOptions,
  DmAutocompleteOptions,
  DmSlashCommandOptions,
  ComponentClickOptions,
  InteractionHandle,
  LocaleInput,
  SelectMenuOptions,
  SlashCommandOptions,
} from './interactions.js';
import type { RateLimitRule } from './ratelimit.js';
import { RestApi } from './rest.js';
import { shardIdForGuild } from './snowflake.js';
import type { ChoiceInput } from './validation.js';
import type { EmulatedMessage, EmulatorChannel, EmulatorChannelType } from './world.js';
import type { EventEmitter } from 'node:events';

export interface DiscordEmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  host?: string;
  /** The application's id, which is also the bot user's id. */
  applicationId?: string;
  /** When set, REST calls needing auth with another token get 401, and IDENTIFY closes with 4004. */
  botToken?: string;
  /**
   * The privileged intents the application has enabled in the developer portal (none by default).
   * IDENTIFY asking for another one closes with 4014 "Disallowed intent(s)".
   */
  privilegedIntents?: readonly PrivilegedIntent[];
  /** A first callback later than this answers 404 / 10062 "Unknown interaction". */
  interactionDeadlineMs?: number;
  /**
   * Webhook calls (edit, follow-up, fetch) with an older token answer 401 / 50027 "Invalid Webhook
   * Token", which is what Discord answers once the 15 minutes are over.
   */
  interactionTokenTtlMs?: number;
  /** The clock for deadlines, token life, nonce windows and snowflakes (not for rate limits). */
  now?: () => number;
  /** `shards` answered by `GET /gateway/bot`. */
  shardCount?: number;
  /**
   * `session_start_limit.max_concurrency`. discord.js spaces identifies beyond it by 5 s, so the
   * default is the shard count (no waiting); set 1, as most real bots get, to see the spacing.
   */
  maxConcurrency?: number;
  /**
   * `session_start_limit.remaining` at start (of a `total` of 1,000 a day). Each IDENTIFY takes one
   * (a RESUME none); an IDENTIFY with none left resets the bot's token, as Discord does on reaching
   * the limit: every session closes with 4004, and the old token is refused from then on.
   */
  sessionStartsRemaining?: number;
  heartbeatIntervalMs?: number;
  /** How long an `enforce_nonce` nonce is remembered ("a few minutes" in Discord's words). */
  nonceWindowMs?: number;
}

export type PrivilegedIntent =
  GatewayIntentBits.GuildMembers | GatewayIntentBits.GuildPresences | GatewayIntentBits.MessageContent;

const DEFAULT_OPTIONS = {
  port: 0,
  host: '127.0.0.1',
  applicationId: '1146016474561220608',
  privilegedIntents: [],
  interactionDeadlineMs: 3_000,
  interactionTokenTtlMs: 15 * 60_000,
  now: Date.now,
  shardCount: 1,
  sessionStartsRemaining: 1_000,
  heartbeatIntervalMs: 41_250,
  nonceWindowMs: 5 * 60_000,
} as const satisfies Required<Omit<DiscordEmulatorOptions, 'botToken' | 'maxConcurrency'>>;

export interface RequestFilter {
  method?: string;
  /** A route template (`/channels/:channelId/messages`) or a concrete path; a RegExp is tested on the path. */
  route?: string | RegExp;
  status?: number;
}

/**
 * A local Discord (REST under `/api/v10` and the gateway on the same port) that the unmodified
 * discord.js client logs into, with a driver for tests: build guilds, channels and users, send
 * slash commands, button clicks and autocomplete as a user would, and observe what the bot did.
 */
export class DiscordEmulator {
  readonly restUrl: string;
  readonly gatewayUrl: string;
  readonly port: number;
  readonly applicationId: Snowflake;
  readonly botUser: APIUser;
  readonly events: EventEmitter<DiscordEmulatorEvents>;
  readonly #core: EmulatorCore;
  readonly #gateway: Gateway;
  readonly #server: Server;
  readonly #driver: InteractionDriver;

  /** Use `startDiscordEmulator`. */
  constructor(parts: { core: EmulatorCore; gateway: Gateway; server: Server; port: number; host: string }) {
    this.#core = parts.core;
    this.#gateway = parts.gateway;
    this.#server = parts.server;
    this.#driver = new InteractionDriver(parts.core);
    this.port = parts.port;
    this.restUrl = `http://${parts.host}:${parts.port}/api`;
    this.gatewayUrl = `ws://${parts.host}:${parts.port}`;
    this.applicationId = parts.core.options.applicationId;
    this.botUser = parts.core.botUser;
    this.events = parts.core.events;
  }

  // ------------------------------------------------------------ world

  /**
   * A guild; connected sessions whose shard holds it get GUILD_CREATE. `shard: [id, count]` picks
   * an id that lands on that shard (guild ids otherwise fall on shards as their timestamps do).
   * `botMember: false` is a server the app was added to without its bot (the invite's
   * `applications.commands` scope alone): its commands can be run there and are answered through
   * the interaction, but the bot gets no GUILD_CREATE nor other events of it, and REST answers 403 /
   * 50001 Missing Access to its routes and channels. `addBot` adds the bot later.
   */
  createGuild(
    options: {
      id?: Snowflake;
      name?: string;
      ownerId?: Snowflake;
      preferredLocale?: LocaleInput;
      shard?: [shardId: number, shardCount: number];
      botMember?: boolean;
    } = {},
  ): APIGuild {
    const { world } = this.#core;
    const id = options.id ?? this.#guildId(options.shard);
    const ownerId = options.ownerId ?? world.addUser({ username: 'guild-owner' }).user.id;
    const guild = world.addGuild({
      id,
      ...(options.name === undefined ? {} : { name: options.name }),
      preferredLocale: toLocale(options.preferredLocale, Locale.EnglishUS),
      ownerId,
      ...(options.botMember === undefined ? {} : { botMember: options.botMember }),
    });
    this.#guildCreate(guild.id);
    this.#core.changed();
    return world.apiGuild(guild);
  }

  /**
   * Adds the bot to a server it is not in (one made with `botMember: false`, or it was removed
   * from): it joins now, and the sessions whose shard holds the server get GUILD_CREATE.
   */
  addBot(guildId: Snowflake): void {
    const guild = this.#core.world.guilds.get(guildId);
    if (!guild) throw new Error(`No guild ${guildId} in the emulator`);
    if (guild.botMember) throw new Error(`The bot is already a member of guild ${guildId}`);
    guild.botMember = true;
    guild.joinedAt = new Date(this.#core.now()).toISOString();
    this.#guildCreate(guildId);
    this.#core.changed();
  }

  /**
   * Removes the bot from a server (kicked, or the app removed): the sessions whose shard holds it get
   * GUILD_DELETE without `unavailable`, which Discord sends when the bot is no longer a member, and
   * REST answers Missing Access from then on. The app's commands stay, as after a kick.
   */
  removeBot(guildId: Snowflake): void {
    const guild = this.#core.world.guilds.get(guildId);
    if (!guild) throw new Error(`No guild ${guildId} in the emulator`);
    if (!guild.botMember) throw new Error(`The bot is not a member of guild ${guildId}`);
    this.#gateway.dispatchToGuild(
      guildId,
      { op: GatewayOpcodes.Dispatch, t: GatewayDispatchEvents.GuildDelete, d: { id: guildId } },
      GatewayIntentBits.Guilds,
    );
    guild.botMember = false;
    this.#core.changed();
  }

  #guildCreate(guildId: Snowflake): void {
    this.#gateway.dispatchToGuild(
      guildId,
      {
        op: GatewayOpcodes.Dispatch,
        t: GatewayDispatchEvents.GuildCreate,
        d: this.#gateway.guildCreateData(guildId),
      },
      GatewayIntentBits.Guilds,
    );
  }

  #guildId(shard: [number, number] | undefined): Snowflake {
    for (;;) {
      const id = this.#core.ids.next();
      if (!shard || shardIdForGuild(id, shard[1]) === shard[0]) return id;
    }
  }

  createChannel(
    guildId: Snowflake,
    options: { name?: string; type?: EmulatorChannelType; parentId?: Snowflake; topic?: string } = {},
  ): EmulatorChannel {
    if (!this.#core.world.guilds.has(guildId)) throw new Error(`No guild ${guildId} in the emulator`);
    const channel = this.#core.world.addChannel(guildId, options);
    this.#channelEvent(GatewayDispatchEvents.ChannelCreate, channel);
    return structuredClone(channel);
  }

  /**
   * A user. `bot: true` makes another application's bot user, whose id is that application's id:
   * the application-command routes answer 403 / 20012 for it, where an id of no application gets
   * 404 / 10002.
   */
  createUser(
    options: { username?: string; globalName?: string; locale?: LocaleInput; bot?: boolean } = {},
  ): APIUser {
    const { world } = this.#core;
    return world.addUser({
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.globalName === undefined ? {} : { globalName: options.globalName }),
      locale: toLocale(options.locale, Locale.EnglishUS),
      ...(options.bot === true ? { bot: true } : {}),
    }).user;
  }

  /**
   * Sets the bot's own overwrite on a channel. By default the bot has View Channel, Send Messages,
   * Embed Links, Attach Files, Read Message History and Use Application Commands.
   */
  setBotPermissions(channelId: Snowflake, overwrite: { allow?: bigint; deny?: bigint }): void {
    this.setChannelOverwrite(channelId, this.botUser.id, 'member', overwrite);
  }

  /** Sets a role's (the guild id is @everyone) or a member's overwrite on a channel. */
  setChannelOverwrite(
    channelId: Snowflake,
    targetId: Snowflake,
    kind: 'role' | 'member',
    overwrite: { allow?: bigint; deny?: bigint },
  ): void {
    const { world } = this.#core;
    world.setOverwrite(channelId, {
      id: targetId,
      type: kind === 'role' ? OverwriteType.Role : OverwriteType.Member,
      allow: (overwrite.allow ?? 0n).toString(),
      deny: (overwrite.deny ?? 0n).toString(),
    });
    const channel = world.channels.get(channelId);
    if (channel) this.#channelEvent(GatewayDispatchEvents.ChannelUpdate, channel);
  }

  /**
   * Times a member out until `until` (null ends the timeout early), as a moderator would: the member
   * keeps only View Channel and Read Message History, and GUILD_MEMBER_UPDATE goes to the guild's
   * sessions (for the bot's own member whatever the intents, for others with Guild Members). A
   * timeout that runs out sends nothing, as on Discord.
   */
  timeoutMember(guildId: Snowflake, userId: Snowflake, until: Date | null): void {
    const { world } = this.#core;
    const guild = world.guilds.get(guildId);
    if (!guild) throw new Error(`No guild ${guildId} in the emulator`);
    // Discord refuses to time out the owner or an administrator (403, Missing Permissions).
    const roles = new Set(world.member(guildId, userId)?.roles ?? []);
    const isAdministrator = guild.roles.some(
      (role) =>
        (role.id === guild.id || roles.has(role.id)) &&
        (BigInt(role.permissions) & PermissionFlagsBits.Administrator) !== 0n,
    );
    if (until && (guild.ownerId === userId || isAdministrator))
      throw new Error(`Discord does not time out the owner or an administrator of guild ${guildId}`);
    const key = `${guildId}:${userId}`;
    if (until) world.timeouts.set(key, until.toISOString());
    else world.timeouts.delete(key);
    const member = world.member(guildId, userId);
    if (!member) throw new Error(`No user ${userId} in the emulator`);
    this.#gateway.dispatchToGuild(
      guildId,
      {
        op: GatewayOpcodes.Dispatch,
        t: GatewayDispatchEvents.GuildMemberUpdate,
        d: { ...member, avatar: member.avatar ?? null, banner: member.banner ?? null, guild_id: guildId },
      },
      userId === this.botUser.id ? 0 : GatewayIntentBits.GuildMembers,
    );
    this.#core.changed();
  }

  /** The bot's DM channel with a user (made if there was none yet): `messages(id)` lists what it holds. */
  dmChannel(userId: Snowflake): { id: Snowflake } {
    return { id: this.#core.world.dmChannel(userId).id };
  }

  /** Deletes a channel: later calls about it answer 404 / 10003 "Unknown Channel". */
  deleteChannel(channelId: Snowflake): void {
    const channel = this.#core.world.channels.get(channelId);
    if (!channel) throw new Error(`No channel ${channelId} in the emulator`);
    this.#core.world.channels.delete(channelId);
    this.#channelEvent(GatewayDispatchEvents.ChannelDelete, channel);
  }

  #channelEvent(
    event:
      | GatewayDispatchEvents.ChannelCreate
      | GatewayDispatchEvents.ChannelUpdate
      | GatewayDispatchEvents.ChannelDelete,
    channel: EmulatorChannel,
  ): void {
    const guildId = channel.guild_id;
    if (guildId !== undefined) {
      const d = { ...structuredClone(channel), guild_id: guildId };
      const op: GatewayOpcodes.Dispatch = GatewayOpcodes.Dispatch;
      const payload =
        event === GatewayDispatchEvents.ChannelCreate
          ? { op, t: event, d }
          : event === GatewayDispatchEvents.ChannelUpdate
            ? { op, t: event, d }
            : { op, t: event, d };
      this.#gateway.dispatchToGuild(guildId, payload, GatewayIntentBits.Guilds);
    }
    this.#core.changed();
  }

  // ------------------------------------------------------------ interactions

  /**
   * A user runs a registered chat-input command (guild commands first, then global), or with
   * `dm: true` a global command in the bot's DM with them.
   */
  slash(options: SlashCommandOptions | DmSlashCommandOptions): InteractionHandle {
    return this.#driver.slash(options);
  }

  /** A user clicks a button on a message the emulator holds; throws if there is no such button. */
  clickButton(options: ComponentClickOptions): InteractionHandle {
    return this.#driver.clickButton(options);
  }

  /** A user picks values in a string select menu on a message the emulator holds. */
  selectMenu(options: SelectMenuOptions): InteractionHandle {
    return this.#driver.selectMenu(options);
  }

  /** A user types in an autocomplete option; resolves to the choices the bot answered with. */
  autocomplete(options: AutocompleteOptions | DmAutocompleteOptions): Promise<ChoiceInput[]> {
    const handle = this.#driver.autocomplete(options);
    const state = this.#core.interactions.get(handle.id);
    if (!state) throw new Error('Autocomplete interaction vanished');
    const timeoutMs = options.timeoutMs ?? this.#core.options.interactionDeadlineMs + 1_000;
    return this.#core.signal.waitFor(
      () => {
        if (state.choices) return structuredClone(state.choices);
        if (state.expiredUnanswered())
          throw new Error(`No choices: Discord refused ${state.describe(this.#core.now())}`);
        return undefined;
      },
      timeoutMs,
      () => `the choices of ${state.describe(this.#core.now())}`,
      state.id,
    );
  }

  // ------------------------------------------------------------ messages

  /**
   * Messages visible in a channel (not ephemeral ones), oldest first, as they are now, each with the
   * nonce it was created with (which Discord's own reads of a message leave out).
   */
  messages(channelId: Snowflake): EmulatedMessage[] {
    const { world } = this.#core;
    return world.channelMessages(channelId).map((message) => {
      const nonce = world.messages.get(message.id)?.nonce;
      const copy = structuredClone(message);
      return nonce === undefined ? copy : { ...copy, nonce };
    });
  }

  /** Any message the emulator holds, ephemeral ones included. */
  message(messageId: Snowflake): EmulatedMessage | undefined {
    const stored = this.#core.world.messages.get(messageId);
    return stored ? structuredClone(stored.message) : undefined;
  }

  /** The first channel-visible message, past or future (edits count), that matches. */
  waitForMessage(
    predicate: (message: EmulatedMessage) => boolean,
    timeoutMs = 5_000,
  ): Promise<EmulatedMessage> {
    return this.#core.signal.waitFor(
      () => {
        for (const stored of this.#core.world.messages.values()) {
          if (stored.inChannel && predicate(stored.message)) return structuredClone(stored.message);
        }
        return undefined;
      },
      timeoutMs,
      () => `a message matching ${predicate.toString()}`,
    );
  }

  /** The bytes uploaded for an attachment (by object or id). */
  fileData(attachment: Pick<APIAttachment, 'id'> | Snowflake): Buffer {
    const id = typeof attachment === 'string' ? attachment : attachment.id;
    const stored = this.#core.world.attachments.get(id);
    if (!stored) throw new Error(`No attachment ${id} in the emulator`);
    return Buffer.from(stored.data);
  }

  // ------------------------------------------------------------ commands, requests, rate limits

  /** Registered commands: of a guild, or global ones without a guild id. */
  commands(guildId?: Snowflake): APIApplicationCommand[] {
    const commands =
      guildId === undefined ? this.#core.world.globalCommands : this.#core.world.guildCommands.get(guildId);
    return structuredClone([...(commands?.values() ?? [])]);
  }

  /** Every REST request so far, in order. */
  get requests(): readonly RequestRecord[] {
    return this.#core.requests.map((record) => ({ ...record }));
  }

  requestCount(filter: RequestFilter = {}): number {
    const method = filter.method?.toUpperCase();
    return this.#core.requests.filter((record) => {
      if (method !== undefined && record.method !== method) return false;
      if (filter.status !== undefined && record.status !== filter.status) return false;
      const { route } = filter;
      if (route instanceof RegExp) {
        route.lastIndex = 0;
        return route.test(record.path);
      }
      return route === undefined || route === record.route || route === record.path;
    }).length;
  }

  /** Imposes (or with `null` lifts) a rate limit; see `RateLimitRule`. */
  setRateLimit(rule: RateLimitRule | null): void {
    this.#core.rateLimiter.set(rule);
  }

  // ------------------------------------------------------------ gateway

  /** Closes every gateway socket (code 4000 by default), so clients reconnect and resume. */
  disconnectAll(code?: number): void {
    this.#gateway.disconnectAll(code);
  }

  /** Sends RECONNECT (op 7) to every connected session; returns how many got it. */
  requestReconnect(): number {
    return this.#gateway.requestReconnect();
  }

  /** Asks every connected session for a heartbeat now (op 1); returns how many were asked. */
  requestHeartbeat(): number {
    return this.#gateway.requestHeartbeat();
  }

  connectedShards(): ConnectedShard[] {
    return this.#gateway.connectedShards();
  }

  /** Closes gateway sockets and the HTTP server; resolves when both are closed. */
  async close(): Promise<void> {
    await this.#gateway.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.#server.close((error) => (error ? reject(error) : resolve())),
    );
  }
}

/** Starts an emulator listening on `host:port` (port 0 picks a free one). */
export async function startDiscordEmulator(options: DiscordEmulatorOptions = {}): Promise<DiscordEmulator> {
  const settings = { ...DEFAULT_OPTIONS, ...options };
  const core = new EmulatorCore({
    applicationId: settings.applicationId,
    privilegedIntents: settings.privilegedIntents.reduce<number>((all, intent) => all | intent, 0),
    botToken: options.botToken,
    interactionDeadlineMs: settings.interactionDeadlineMs,
    interactionTokenTtlMs: settings.interactionTokenTtlMs,
    nonceWindowMs: settings.nonceWindowMs,
    now: settings.now,
    sessionStartsRemaining: settings.sessionStartsRemaining,
  });
  let gatewayUrl = '';
  const rest = new RestApi(core, {
    gatewayUrl: () => gatewayUrl,
    shardCount: settings.shardCount,
    maxConcurrency: options.maxConcurrency ?? settings.shardCount,
  });
  const server = createServer((request, response) => {
    void rest.handle(request, response);
  });
  const gateway = new Gateway(server, core, () => gatewayUrl, settings.heartbeatIntervalMs);
  core.gateway = gateway;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  core.baseUrl = `http://${settings.host}:${port}`;
  gatewayUrl = `ws://${settings.host}:${port}`;
  return new DiscordEmulator({ core, gateway, server, port, host: settings.host });
}
