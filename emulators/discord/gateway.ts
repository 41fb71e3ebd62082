import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import {
  GatewayCloseCodes,
  GatewayDispatchEvents,
  GatewayIntentBits,
  GatewayOpcodes,
} from 'discord-api-types/v10';
import type {
  GatewayDispatchPayload,
  GatewayGuildCreateDispatchData,
  GatewayReceivePayload,
  Snowflake,
} from 'discord-api-types/v10';
import { PRIVILEGED_INTENTS } from './core.js';
import type { EmulatorCore, GatewayLink, UnsequencedDispatch } from './core.js';
import { shardIdForGuild } from './snowflake.js';

/** A gateway session: survives its socket so that the client can resume and get what it missed. */
interface Session {
  id: string;
  shard: [number, number];
  intents: number;
  seq: number;
  socket: WebSocket | null;
  /** Dispatches kept for RESUME replay. */
  backlog: GatewayDispatchPayload[];
  /** Heartbeats (op 1) received on this session's sockets. */
  heartbeats: number;
}

export interface ConnectedShard {
  sessionId: string;
  shardId: number;
  shardCount: number;
  /** Heartbeats the client has sent on this session so far. */
  heartbeats: number;
}

const BACKLOG_LIMIT = 1_000;
/** Gateway versions Discord still serves; another `v` in the URL closes with 4012. */
const GATEWAY_VERSIONS: ReadonlySet<string> = new Set(['6', '7', '8', '9', '10']);
/** Most members a prefix query or a request by `user_ids` gets (Discord's docs, Request Guild Members). */
const MEMBER_QUERY_LIMIT = 100;
/** Every bit that names an intent; IDENTIFY with any other bit closes with 4013. */
const VALID_INTENTS = Object.values(GatewayIntentBits)
  .filter((value) => typeof value === 'number')
  .reduce((all, bit) => all | BigInt(bit), 0n);

/** Events a connection may send per window, and the window (Discord's gateway docs). */
const SEND_LIMIT = 120;
const SEND_WINDOW_MS = 60_000;
/** The largest payload a client may send. */
const MAX_SENT_PAYLOAD_BYTES = 4096;

const payloadSchema = z.object({ op: z.number().int(), d: z.unknown() });
const identifySchema = z.object({
  token: z.string(),
  intents: z.number().int().min(0),
  shard: z.tuple([z.number().int(), z.number().int()]).optional(),
});
const resumeSchema = z.object({
  token: z.string(),
  session_id: z.string(),
  seq: z.number().int().nullable(),
});
const requestMembersSchema = z.object({
  guild_id: z.string(),
  query: z.string().optional(),
  limit: z.number().int().optional(),
  user_ids: z.union([z.string(), z.array(z.string())]).optional(),
  nonce: z.string().optional(),
});

/**
 * The gateway: HELLO, IDENTIFY → READY + GUILD_CREATE per guild of the shard, heartbeat ACKs,
 * RESUME with replay of missed dispatches (INVALID_SESSION once they are no longer all kept), and
 * dispatches to every session holding a guild.
 */
export class Gateway implements GatewayLink {
  readonly #wss: WebSocketServer;
  readonly #sessions = new Map<string, Session>();
  readonly #socketSessions = new Map<WebSocket, Session | null>();

  constructor(
    server: Server,
    private readonly core: EmulatorCore,
    private readonly publicUrl: () => string,
    private readonly heartbeatIntervalMs: number,
  ) {
    this.#wss = new WebSocketServer({ server });
    this.#wss.on('connection', (socket, request) => this.#accept(socket, request));
  }

  /** Sessions whose socket is open, one per shard connection. */
  connectedShards(): ConnectedShard[] {
    return [...this.#sessions.values()]
      .filter((session) => session.socket?.readyState === WebSocket.OPEN)
      .map((session) => ({
        sessionId: session.id,
        shardId: session.shard[0],
        shardCount: session.shard[1],
        heartbeats: session.heartbeats,
      }));
  }

  /**
   * Closes every socket with `code` (4000 by default: the client resumes, as after a network
   * hiccup). Sessions stay, so dispatches sent meanwhile are replayed on RESUME.
   */
  disconnectAll(code: number = GatewayCloseCodes.UnknownError): void {
    for (const socket of this.#socketSessions.keys()) socket.close(code, 'Disconnected by the emulator');
  }

  /**
   * Sends RECONNECT (op 7, `d` null) on every open socket, as Discord does before it moves a
   * session (a gateway restart, a rebalance): the client should reconnect and resume at once.
   * Nothing is closed here: the session stays resumable, and a client that closes with any code
   * but 1000/1001 resumes it, with what was dispatched meanwhile replayed.
   */
  requestReconnect(): number {
    // Discord's docs show `"d": null`; discord-api-types types `d` as never.
    return this.#sendToSessions({ op: GatewayOpcodes.Reconnect, d: null as never, s: null, t: null });
  }

  /**
   * Sends a heartbeat request (op 1) on every open socket of an identified session, as Discord may
   * at any time: "the app should immediately send an Opcode 1 Heartbeat without waiting the
   * remainder of the current interval" (Gateway docs, Heartbeat Requests). The docs show no
   * payload for it; `d` is null here, as in op 7 and op 11 (discord-api-types types it as never).
   */
  requestHeartbeat(): number {
    return this.#sendToSessions({ op: GatewayOpcodes.Heartbeat, d: null as never, s: null, t: null });
  }

  /** Sends `payload` on every open socket of an identified session; returns how many got it. */
  #sendToSessions(payload: GatewayReceivePayload): number {
    let sent = 0;
    for (const [socket, session] of this.#socketSessions) {
      if (!session || socket.readyState !== WebSocket.OPEN) continue;
      this.#send(socket, payload);
      sent++;
    }
    return sent;
  }

  /**
   * Sends a guild's event to the sessions whose shard holds the guild. Of a guild the bot is not a
   * member of, only interactions: the app's commands run there, but the bot receives nothing else.
   */
  dispatchToGuild(guildId: Snowflake, payload: UnsequencedDispatch, requiredIntents = 0): number {
    if (
      payload.t !== GatewayDispatchEvents.InteractionCreate &&
      this.core.world.guilds.get(guildId)?.botMember === false
    )
      return 0;
    const sessions = this.#sessionsFor(guildId).filter(
      (session) => (session.intents & requiredIntents) === requiredIntents,
    );
    for (const session of sessions) this.#dispatch(session, payload);
    return sessions.length;
  }

  sessionCountForGuild(guildId: Snowflake): number {
    return this.#sessionsFor(guildId).length;
  }

  dispatchToDms(payload: UnsequencedDispatch): number {
    const sessions = this.#dmSessions();
    for (const session of sessions) this.#dispatch(session, payload);
    return sessions.length;
  }

  sessionCountForDms(): number {
    return this.#dmSessions().length;
  }

  /** Direct messages go to shard 0 (Discord's docs, "Sharding"). */
  #dmSessions(): Session[] {
    return [...this.#sessions.values()].filter((session) => session.shard[0] === 0);
  }

  async close(): Promise<void> {
    for (const socket of this.#socketSessions.keys()) socket.terminate();
    this.#socketSessions.clear();
    this.#sessions.clear();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #sessionsFor(guildId: Snowflake): Session[] {
    return [...this.#sessions.values()].filter(
      (session) => shardIdForGuild(guildId, session.shard[1]) === session.shard[0],
    );
  }

  #accept(socket: WebSocket, request: IncomingMessage): void {
    // The `v` of the gateway URL: absent is fine; a version Discord does not serve closes the socket
    // it has just accepted with 4012, before HELLO.
    socket.on('error', () => socket.terminate());
    const version = new URL(request.url ?? '/', 'ws://emulator.invalid').searchParams.get('v');
    if (version !== null && !GATEWAY_VERSIONS.has(version)) {
      socket.close(GatewayCloseCodes.InvalidAPIVersion, 'Invalid API version.');
      return;
    }
    this.#socketSessions.set(socket, null);
    // Discord's send limit: 120 events per connection every 60 s, then a close with 4008.
    let window = { startedAt: performance.now(), sent: 0 };
    socket.on('message', (data, isBinary) => {
      const bytes = Array.isArray(data)
        ? Buffer.concat(data)
        : data instanceof ArrayBuffer
          ? Buffer.from(data)
          : data;
      const at = performance.now();
      if (at - window.startedAt >= SEND_WINDOW_MS) window = { startedAt: at, sent: 0 };
      window.sent += 1;
      if (window.sent > SEND_LIMIT) {
        socket.close(GatewayCloseCodes.RateLimited, 'You are being rate limited.');
        return;
      }
      // "Must not exceed 4096 bytes", else closed with 4002 (Discord's gateway docs).
      if (bytes.length > MAX_SENT_PAYLOAD_BYTES) {
        socket.close(GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
        return;
      }
      // discord.js sends text frames; Discord answers binary ETF or compressed frames with a close.
      this.#onMessage(socket, isBinary ? '' : bytes.toString('utf8'));
    });
    socket.on('close', (code) => this.#onClose(socket, code));
    this.#send(socket, {
      op: GatewayOpcodes.Hello,
      d: { heartbeat_interval: this.heartbeatIntervalMs },
      s: null,
      t: null,
    });
  }

  #onClose(socket: WebSocket, code: number): void {
    const session = this.#socketSessions.get(socket);
    this.#socketSessions.delete(socket);
    if (!session || session.socket !== socket) return;
    session.socket = null;
    // A normal close ends the session on Discord too; any other close leaves it resumable.
    if (code === 1000 || code === 1001) this.#sessions.delete(session.id);
  }

  #onMessage(socket: WebSocket, text: string): void {
    let parsed: z.infer<typeof payloadSchema>;
    try {
      parsed = payloadSchema.parse(JSON.parse(text));
    } catch {
      socket.close(GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
      return;
    }
    const session = this.#socketSessions.get(socket) ?? null;
    // Any number may arrive; unknown ones fall through to the default case.
    const op = parsed.op as GatewayOpcodes;
    switch (op) {
      case GatewayOpcodes.Heartbeat:
        if (session) session.heartbeats += 1;
        // Discord sends `"d": null`; discord-api-types types `d` as never.
        this.#send(socket, { op: GatewayOpcodes.HeartbeatAck, d: null as never, s: null, t: null });
        return;
      case GatewayOpcodes.Identify:
        this.#identify(socket, session, parsed.d);
        return;
      case GatewayOpcodes.Resume:
        this.#resume(socket, session, parsed.d);
        return;
      case GatewayOpcodes.PresenceUpdate:
      case GatewayOpcodes.VoiceStateUpdate:
      case GatewayOpcodes.RequestSoundboardSounds:
        if (!session) socket.close(GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
        return;
      case GatewayOpcodes.RequestGuildMembers:
        if (!session) socket.close(GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
        else this.#requestMembers(session, parsed.d);
        return;
      default:
        socket.close(GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
    }
  }

  #tokenMatches(token: string): boolean {
    const expected = this.core.options.botToken;
    const given = token.replace(/^Bot /, '');
    if (this.core.sessionStarts.tokenReset) return false;
    return given.length > 0 && (expected === undefined || given === expected);
  }

  #identify(socket: WebSocket, current: Session | null, data: unknown): void {
    if (current) {
      socket.close(GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated.');
      return;
    }
    const identify = identifySchema.safeParse(data);
    if (!identify.success) {
      // "4001 Unknown opcode: You sent an invalid Gateway opcode or an invalid payload for an
      // opcode" (4002 is for a payload that cannot be decoded at all).
      socket.close(GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
      return;
    }
    if (!this.#tokenMatches(identify.data.token)) {
      socket.close(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    const { intents } = identify.data;
    if ((BigInt(intents) & ~VALID_INTENTS) !== 0n) {
      socket.close(GatewayCloseCodes.InvalidIntents, 'Invalid intent(s).');
      return;
    }
    if ((intents & PRIVILEGED_INTENTS & ~this.core.options.privilegedIntents) !== 0) {
      socket.close(GatewayCloseCodes.DisallowedIntents, 'Disallowed intent(s).');
      return;
    }
    const [shardId, shardCount] = identify.data.shard ?? [0, 1];
    if (shardCount < 1 || shardId < 0 || shardId >= shardCount) {
      socket.close(GatewayCloseCodes.InvalidShard, 'Invalid shard.');
      return;
    }
    const starts = this.core.sessionStarts;
    if (starts.remaining <= 0) {
      // The daily limit reached: the token is reset, every session of the app ends.
      starts.tokenReset = true;
      for (const open of this.#socketSessions.keys())
        open.close(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
      this.#sessions.clear();
      return;
    }
    starts.remaining -= 1;
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      shard: [shardId, shardCount],
      intents,
      seq: 0,
      socket,
      backlog: [],
      heartbeats: 0,
    };
    this.#sessions.set(session.id, session);
    this.#socketSessions.set(socket, session);
    this.core.events.emit('identify', { sessionId: session.id, shard: [shardId, shardCount] });

    const guildIds = [...this.core.world.guilds.values()]
      .filter((guild) => guild.botMember && shardIdForGuild(guild.id, shardCount) === shardId)
      .map((guild) => guild.id);
    this.#dispatch(session, {
      op: GatewayOpcodes.Dispatch,
      t: GatewayDispatchEvents.Ready,
      d: {
        v: 10,
        user: this.core.botUser,
        guilds: guildIds.map((id) => ({ id, unavailable: true })),
        session_id: session.id,
        resume_gateway_url: this.publicUrl(),
        shard: [shardId, shardCount],
        application: {
          id: this.core.options.applicationId,
          flags: this.core.applicationFlags(),
          flags_new: String(this.core.applicationFlags()),
        },
      },
    });
    // Without the Guilds intent Discord lists the guilds in READY but sends no GUILD_CREATE.
    if ((session.intents & GatewayIntentBits.Guilds) === 0) return;
    for (const guildId of guildIds) {
      this.#dispatch(session, {
        op: GatewayOpcodes.Dispatch,
        t: GatewayDispatchEvents.GuildCreate,
        d: this.guildCreateData(guildId),
      });
    }
  }

  #resume(socket: WebSocket, current: Session | null, data: unknown): void {
    const resume = resumeSchema.safeParse(data);
    const session = resume.success ? this.#sessions.get(resume.data.session_id) : undefined;
    if (current || !resume.success || !session || !this.#tokenMatches(resume.data.token)) {
      // Not resumable: the client identifies again. A bad token in a RESUME included: Discord once
      // closed with 4006 there and changed it to op 9 (discord-api-docs#1209, from Discord's staff).
      this.#send(socket, { op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
      return;
    }
    if (session.socket && session.socket !== socket) {
      this.#socketSessions.set(session.socket, null);
      session.socket.close(GatewayCloseCodes.SessionTimedOut, 'Session resumed elsewhere.');
    }
    const after = resume.data.seq ?? 0;
    if (after > session.seq) {
      // A sequence number Discord never sent: "4007 Invalid seq ... Reconnect and start a new
      // session" (Discord's close codes). The session ends; the client identifies again.
      this.#sessions.delete(session.id);
      session.socket = null;
      socket.close(GatewayCloseCodes.InvalidSeq, 'Invalid seq.');
      return;
    }
    const oldestKept = session.backlog[0]?.s;
    if (oldestKept !== undefined && after < oldestKept - 1) {
      // Dispatches after `seq` are no longer kept: Discord cannot replay them and ends the session.
      this.#sessions.delete(session.id);
      session.socket = null;
      this.#send(socket, { op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
      return;
    }
    session.socket = socket;
    this.#socketSessions.set(socket, session);
    for (const payload of session.backlog) {
      if (payload.s > after) this.#send(socket, payload);
    }
    this.core.events.emit('resume', { sessionId: session.id });
    this.#dispatch(session, { op: GatewayOpcodes.Dispatch, t: GatewayDispatchEvents.Resumed, d: undefined });
  }

  #requestMembers(session: Session, data: unknown): void {
    const request = requestMembersSchema.safeParse(data);
    if (!request.success) return;
    const { guild_id: guildId, query, limit, user_ids: userIds, nonce } = request.data;
    const wanted = userIds === undefined ? undefined : new Set([userIds].flat().slice(0, MEMBER_QUERY_LIMIT));
    // The whole member list (an empty query with limit 0) needs the Guild Members intent; without
    // it Discord sends no chunk (and keeps the connection). Prefix queries and `user_ids` get at
    // most 100 members, limit 0 with a query included.
    const prefix = query ?? '';
    const wholeList = wanted === undefined && prefix === '' && (limit ?? 0) === 0;
    if (wholeList && (session.intents & GatewayIntentBits.GuildMembers) === 0) return;
    const cap = wholeList
      ? undefined
      : Math.min(limit === undefined || limit === 0 ? MEMBER_QUERY_LIMIT : limit, MEMBER_QUERY_LIMIT);
    const candidates = [this.core.botUser.id, ...this.core.world.users.keys()];
    const members = candidates
      .filter((id) => (wanted ? wanted.has(id) : true))
      .flatMap((id) => {
        const member = this.core.world.member(guildId, id);
        return member ? [member] : [];
      })
      .filter((member) => prefix === '' || member.user.username.startsWith(prefix))
      .slice(0, cap);
    this.#dispatch(session, {
      op: GatewayOpcodes.Dispatch,
      t: GatewayDispatchEvents.GuildMembersChunk,
      d: {
        guild_id: guildId,
        members,
        chunk_index: 0,
        chunk_count: 1,
        ...(wanted
          ? { not_found: [...wanted].filter((id) => !members.some((member) => member.user.id === id)) }
          : {}),
        ...(nonce === undefined ? {} : { nonce }),
      },
    });
  }

  /** A guild as GUILD_CREATE carries it: with channels and the bot's own member. */
  guildCreateData(guildId: Snowflake): GatewayGuildCreateDispatchData {
    const { world } = this.core;
    const guild = world.guilds.get(guildId);
    if (!guild) throw new Error(`No guild ${guildId}`);
    const botMember = world.member(guildId, this.core.botUser.id);
    return {
      ...world.apiGuild(guild),
      joined_at: guild.joinedAt,
      large: false,
      unavailable: false,
      member_count: world.users.size + 1,
      voice_states: [],
      members: botMember ? [botMember] : [],
      // Channels in GUILD_CREATE carry no `guild_id` (discord-api-docs#2614: the guild is the event's).
      channels: world
        .guildChannels(guildId)
        .map(({ guild_id: _guildId, ...channel }) => structuredClone(channel)),
      threads: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  #dispatch(session: Session, payload: UnsequencedDispatch): void {
    session.seq += 1;
    // Spreading a union member and adding `s` gives back a member of the same union.
    const sequenced = { ...payload, s: session.seq } as GatewayDispatchPayload;
    session.backlog.push(sequenced);
    if (session.backlog.length > BACKLOG_LIMIT) session.backlog.shift();
    if (session.socket) this.#send(session.socket, sequenced);
  }

  #send(socket: WebSocket, payload: GatewayReceivePayload): void {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload));
  }
}
