import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ApplicationCommandType, ChannelType, MessageType, PermissionFlagsBits } from 'discord-api-types/v10';
import type {
  APIApplication,
  APIApplicationCommand,
  APIApplicationCommandOption,
  RESTGetAPIGatewayBotResult,
  RESTGetAPIGatewayResult,
  Snowflake,
} from 'discord-api-types/v10';
import { parseBody as parseRequestBody } from './body.js';
import type { ParsedBody } from './body.js';
import type { EmulatorCore, RequestRecord, RouteResult } from './core.js';
import { DiscordErrors, DiscordHttpError } from './errors.js';
import type { FieldError } from './errors.js';
import { InteractionRoutes } from './interactions.js';
import { isEmptyMessage } from './messages.js';
import { commandErrors, commandSchema, maxLength, parseBody, throwFieldErrors } from './validation.js';
import type { CommandInput } from './validation.js';

export interface RequestContext {
  method: string;
  /** The path after `/api/v10`. */
  path: string;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  body: () => Promise<ParsedBody>;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  keys: string[];
  /** Whether the route needs `Authorization: Bot <token>` (interaction and webhook routes do not). */
  auth: boolean;
  handler: (context: RequestContext) => Promise<RouteResult> | RouteResult;
}

/**
 * Discord buckets rate limits per route and per "major" parameter: a channel, a guild, an
 * interaction, or a webhook's id and token together (each interaction token is a bucket of its own,
 * as @discordjs/rest keys its queues by `webhooks/{id}/{token}`).
 */
const MAJOR_PARAMS: readonly (readonly string[])[] = [
  ['channelId'],
  ['guildId'],
  ['webhookId', 'token'],
  ['interactionId'],
];

function bucketKey(template: string, params: Readonly<Record<string, string>>): string {
  const major = MAJOR_PARAMS.find((keys) => keys.every((key) => key in params)) ?? [];
  return major.reduce((key, param) => key.replace(`:${param}`, params[param] ?? ''), template);
}

/**
 * Path parameters that hold a snowflake, by the field name Discord's errors give them. A value that
 * is not one (`/channels/undefined/messages`, `/guilds/abc`) is refused before any lookup with
 * 400 / 50035 and `NUMBER_TYPE_COERCE` at that name, as Discord answers, not with a 404.
 */
const SNOWFLAKE_PARAMS: Readonly<Record<string, string>> = {
  applicationId: 'application_id',
  guildId: 'guild_id',
  channelId: 'channel_id',
  messageId: 'message_id',
  userId: 'user_id',
  webhookId: 'webhook_id',
  commandId: 'command_id',
  interactionId: 'interaction_id',
};
const SNOWFLAKE = /^\d{1,20}$/;

/** Discord's aliases that stand where an id would: `@me` for the user, `@original` for the response. */
function isAlias(key: string, value: string, template: string): boolean {
  if (key === 'userId' || key === 'applicationId') return value === '@me';
  return key === 'messageId' && template.startsWith('/webhooks/') && value === '@original';
}

function pathIdErrors(template: string, params: Readonly<Record<string, string>>): FieldError[] {
  return Object.entries(params).flatMap(([key, value]) => {
    const field = SNOWFLAKE_PARAMS[key];
    if (field === undefined || SNOWFLAKE.test(value) || isAlias(key, value, template)) return [];
    return [{ path: [field], code: 'NUMBER_TYPE_COERCE', message: `Value "${value}" is not snowflake.` }];
  });
}

function compile(method: string, template: string, auth: boolean, handler: Route['handler']): Route {
  const keys: string[] = [];
  const source = template
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      keys.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { method, template, pattern: new RegExp(`^${source}/?$`), keys, auth, handler };
}

export interface RestSettings {
  gatewayUrl: () => string;
  shardCount: number;
  maxConcurrency: number;
}

const COMMAND_LIMITS: Readonly<Record<number, number>> = {
  [ApplicationCommandType.ChatInput]: 100,
  [ApplicationCommandType.User]: 15,
  [ApplicationCommandType.Message]: 15,
};
/**
 * The longest list a bulk overwrite takes: every type's limit together. Longer: 50035 "Must be 130
 * or fewer in length."; within it, a type over its own limit: 30032 "Maximum number of application
 * commands reached (100)" (measured against Discord, chenhg5/cc-connect#504).
 */
const COMMAND_LIST_MAX = 130;

/** The REST API under `/api/v10`, and the attachment files the emulator serves. */
export class RestApi {
  readonly #routes: Route[];
  readonly #interactions: InteractionRoutes;

  constructor(
    private readonly core: EmulatorCore,
    private readonly settings: RestSettings,
  ) {
    this.#interactions = new InteractionRoutes(core);
    this.#routes = this.#buildRoutes();
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.method ?? 'GET').toUpperCase();
    const url = new URL(request.url ?? '/', 'http://emulator.invalid');
    const raw = await readAll(request);
    const attachment = /^\/attachments\/[^/]+\/([^/]+)\/[^/]+$/.exec(url.pathname);
    if (attachment && (method === 'GET' || method === 'HEAD')) {
      const stored = this.core.world.attachments.get(attachment[1] ?? '');
      if (!stored) return this.#send(response, 404, DiscordErrors.notFound().body);
      response.writeHead(200, {
        'Content-Type': stored.attachment.content_type ?? 'application/octet-stream',
        'Content-Length': String(stored.data.length),
      });
      response.end(method === 'HEAD' ? undefined : stored.data);
      return;
    }

    const api = /^\/api(?:\/v\d+)?(\/.*)?$/.exec(url.pathname);
    const path = api ? (api[1] ?? '/') : url.pathname;
    const record: RequestRecord = { method, path, route: null, status: 0, at: Date.now() };
    let headers: Record<string, string> = {};
    try {
      const candidates = api ? this.#routes.filter((route) => route.pattern.test(path)) : [];
      if (candidates.length === 0) throw DiscordErrors.notFound();
      const route = candidates.find((candidate) => candidate.method === method);
      if (!route) throw DiscordErrors.methodNotAllowed();
      record.route = route.template;
      if (route.auth) this.#authorize(request.headers.authorization);
      const params = this.#params(route, path);
      headers = this.core.rateLimiter.check(method, path, route.template, bucketKey(route.template, params));
      throwFieldErrors(pathIdErrors(route.template, params));
      let parsed: Promise<ParsedBody> | undefined;
      const contentType = request.headers['content-type'];
      const result = await route.handler({
        method,
        path,
        params,
        query: url.searchParams,
        body: () => (parsed ??= parseRequestBody(contentType, raw)),
      });
      record.status = result.status;
      this.#send(response, result.status, result.body, headers);
    } catch (error) {
      if (error instanceof DiscordHttpError) {
        record.status = error.status;
        if (error.body.code !== undefined) record.code = error.body.code;
        this.#send(response, error.status, error.body, { ...headers, ...error.headers });
      } else {
        const failure = error instanceof Error ? error : new Error(String(error));
        record.status = 500;
        this.core.events.emit('internalError', failure);
        console.error(`[discord emulator] ${method} ${path} failed:`, failure);
        this.#send(response, 500, { code: 0, message: '500: Internal Server Error' });
      }
    }
    this.core.requests.push(record);
    if (this.core.events.listenerCount('request') > 0) this.core.events.emit('request', { ...record });
    if (record.status === 429) this.core.events.emit('rateLimited', { ...record });
  }

  #authorize(header: string | undefined): void {
    const match = /^Bot (.+)$/.exec(header ?? '');
    const expected = this.core.options.botToken;
    if (!match || (expected !== undefined && match[1] !== expected) || this.core.sessionStarts.tokenReset)
      throw DiscordErrors.unauthorized();
  }

  #params(route: Route, path: string): Record<string, string> {
    const match = route.pattern.exec(path);
    const params: Record<string, string> = {};
    route.keys.forEach((key, index) => {
      params[key] = decodeURIComponent(match?.[index + 1] ?? '');
    });
    return params;
  }

  #send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (status === 204 || body === undefined) {
      response.writeHead(status, headers);
      response.end();
      return;
    }
    const json = JSON.stringify(body);
    response.writeHead(status, {
      ...headers,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(json)),
    });
    response.end(json);
  }

  #buildRoutes(): Route[] {
    const { core } = this;
    const interactions = this.#interactions;
    const authed = (method: string, template: string, handler: Route['handler']) =>
      compile(method, template, true, handler);
    const open = (method: string, template: string, handler: Route['handler']) =>
      compile(method, template, false, handler);
    const ok = (body: unknown): RouteResult => ({ status: 200, body });

    return [
      // ---------------------------------------------------------------- gateway, users, application
      open('GET', '/gateway', () =>
        ok({ url: this.settings.gatewayUrl() } satisfies RESTGetAPIGatewayResult),
      ),
      authed('GET', '/gateway/bot', () =>
        ok({
          url: this.settings.gatewayUrl(),
          shards: this.settings.shardCount,
          session_start_limit: {
            total: core.sessionStarts.total,
            remaining: core.sessionStarts.remaining,
            reset_after: 14_400_000,
            max_concurrency: this.settings.maxConcurrency,
          },
        } satisfies RESTGetAPIGatewayBotResult),
      ),
      authed('GET', '/users/@me', () => ok(core.botUser)),
      authed('GET', '/users/:userId', ({ params }) => {
        const user = core.world.user(params['userId'] ?? '');
        if (!user) throw DiscordErrors.unknownUser();
        return ok(user);
      }),
      authed('GET', '/applications/@me', () => ok(this.#application())),

      // ---------------------------------------------------------------- commands
      ...this.#commandRoutes('/applications/:applicationId/commands', authed),
      ...this.#commandRoutes('/applications/:applicationId/guilds/:guildId/commands', authed),

      // ---------------------------------------------------------------- interactions and their webhook
      open('POST', '/interactions/:interactionId/:token/callback', async ({ params, query, body, path }) =>
        interactions.callback(
          params['interactionId'] ?? '',
          params['token'] ?? '',
          await body(),
          booleanQuery(query.get('with_response')),
          path,
        ),
      ),
      open('POST', '/webhooks/:webhookId/:token', async ({ params, body, path }) =>
        interactions.followUp(params['webhookId'] ?? '', params['token'] ?? '', await body(), path),
      ),
      open('GET', '/webhooks/:webhookId/:token/messages/:messageId', ({ params, path }) =>
        interactions.getMessage(
          params['webhookId'] ?? '',
          params['token'] ?? '',
          params['messageId'] ?? '',
          path,
        ),
      ),
      open('PATCH', '/webhooks/:webhookId/:token/messages/:messageId', async ({ params, body, path }) =>
        interactions.editMessage(
          params['webhookId'] ?? '',
          params['token'] ?? '',
          params['messageId'] ?? '',
          await body(),
          path,
        ),
      ),
      open('DELETE', '/webhooks/:webhookId/:token/messages/:messageId', ({ params, path }) =>
        interactions.deleteMessage(
          params['webhookId'] ?? '',
          params['token'] ?? '',
          params['messageId'] ?? '',
          path,
        ),
      ),

      // ---------------------------------------------------------------- channels and messages
      authed('GET', '/channels/:channelId', ({ params }) => {
        const channel = core.channelOrThrow(params['channelId'] ?? '');
        core.requireVisible(channel.id);
        return ok(channel);
      }),
      authed('GET', '/channels/:channelId/messages', ({ params, query }) =>
        this.#listMessages(params['channelId'] ?? '', query),
      ),
      authed('POST', '/channels/:channelId/messages', async ({ params, body }) =>
        this.#createChannelMessage(params['channelId'] ?? '', await body()),
      ),
      authed('GET', '/channels/:channelId/messages/:messageId', ({ params }) => {
        const channelId = params['channelId'] ?? '';
        core.channelOrThrow(channelId);
        const permissions = core.requireVisible(channelId);
        if ((permissions & PermissionFlagsBits.ReadMessageHistory) === 0n)
          throw DiscordErrors.missingAccess();
        return ok(this.#channelMessage(channelId, params['messageId'] ?? ''));
      }),
      authed('PATCH', '/channels/:channelId/messages/:messageId', async ({ params, body }) => {
        const channelId = params['channelId'] ?? '';
        core.channelOrThrow(channelId);
        const permissions = core.requireVisible(channelId);
        const message = this.#channelMessage(channelId, params['messageId'] ?? '');
        if (message.author.id !== core.botUser.id) throw DiscordErrors.cannotEditOthersMessage();
        const parsed = await body();
        const payload = core.applyEmbedPermission(
          core.parseMessagePayload(parsed.json),
          permissions,
          parsed.files,
        );
        return ok(core.replaceMessage(core.messages.edit(message, payload, parsed.files)));
      }),
      authed('DELETE', '/channels/:channelId/messages/:messageId', ({ params }) => {
        const channelId = params['channelId'] ?? '';
        core.channelOrThrow(channelId);
        const permissions = core.requireVisible(channelId);
        const message = this.#channelMessage(channelId, params['messageId'] ?? '');
        const own = message.author.id === core.botUser.id;
        if (!own && (permissions & PermissionFlagsBits.ManageMessages) === 0n)
          throw DiscordErrors.missingPermissions();
        core.deleteMessage(message.id);
        return { status: 204 };
      }),
      authed('POST', '/channels/:channelId/typing', ({ params }) => {
        const channelId = params['channelId'] ?? '';
        core.channelOrThrow(channelId);
        const permissions = core.requireVisible(channelId);
        if ((permissions & PermissionFlagsBits.SendMessages) === 0n) throw DiscordErrors.missingPermissions();
        return { status: 204 };
      }),

      // ---------------------------------------------------------------- guilds
      authed('GET', '/guilds/:guildId', ({ params }) => ok(core.guildOrThrow(params['guildId'] ?? ''))),
      authed('GET', '/guilds/:guildId/channels', ({ params }) => {
        const guild = core.guildOrThrow(params['guildId'] ?? '');
        // A channel the bot cannot view is left out entirely (Discord's permissions docs, Channel
        // Visibility), not shown without its content.
        return ok(
          core.world
            .guildChannels(guild.id)
            .filter((channel) => (core.botPermissions(channel.id) & PermissionFlagsBits.ViewChannel) !== 0n),
        );
      }),
      authed('GET', '/guilds/:guildId/roles', ({ params }) =>
        ok(core.guildOrThrow(params['guildId'] ?? '').roles),
      ),
      authed('GET', '/guilds/:guildId/members/:userId', ({ params }) => {
        const guild = core.guildOrThrow(params['guildId'] ?? '');
        const userId = params['userId'] === '@me' ? core.botUser.id : (params['userId'] ?? '');
        const member = core.world.member(guild.id, userId);
        if (!member) throw DiscordErrors.unknownMember();
        return ok(member);
      }),
    ];
  }

  #application(): APIApplication {
    const { core } = this;
    return {
      id: core.options.applicationId,
      name: core.botUser.username,
      icon: null,
      description: '',
      bot_public: false,
      bot_require_code_grant: false,
      bot: core.botUser,
      summary: '',
      verify_key: '0'.repeat(64),
      team: null,
      flags: core.applicationFlags(),
      flags_new: String(core.applicationFlags()),
      approximate_guild_count: core.world.guilds.size,
      interactions_endpoint_url: null,
    };
  }

  #channelMessage(channelId: Snowflake, messageId: Snowflake) {
    const stored = this.core.world.messages.get(messageId);
    if (!stored || !stored.inChannel || stored.message.channel_id !== channelId)
      throw DiscordErrors.unknownMessage();
    return stored.message;
  }

  #listMessages(channelId: Snowflake, query: URLSearchParams): RouteResult {
    const { limit, around, before, after } = listMessagesQuery(query);
    this.core.channelOrThrow(channelId);
    const permissions = this.core.requireVisible(channelId);
    if ((permissions & PermissionFlagsBits.ReadMessageHistory) === 0n) return { status: 200, body: [] };
    let messages = this.core.world.channelMessages(channelId);
    if (around) {
      // Discord documents around, before and after as exclusive; around wins here. The page holds
      // the message itself (limit=1 is the old way to fetch one message) and the newer half first.
      const split = messages.findIndex((message) => BigInt(message.id) >= BigInt(around));
      const at = split === -1 ? messages.length : split;
      const newer = messages.slice(at, at + Math.ceil(limit / 2));
      const older = messages.slice(Math.max(0, at - (limit - newer.length)), at);
      return { status: 200, body: [...older, ...newer].reverse() };
    }
    if (before) messages = messages.filter((message) => BigInt(message.id) < BigInt(before));
    if (after) messages = messages.filter((message) => BigInt(message.id) > BigInt(after));
    const page = after ? messages.slice(0, limit) : messages.slice(-limit);
    return { status: 200, body: page.reverse() };
  }

  /**
   * `POST /channels/{id}/messages`: View Channel (else 403 / 50001) and Send Messages (else
   * 403 / 50013), Attach Files for files, Embed Links for embeds; `enforce_nonce` de-duplication.
   */
  #createChannelMessage(channelId: Snowflake, body: ParsedBody): RouteResult {
    const { core } = this;
    const channel = core.channelOrThrow(channelId);
    if (channel.type === ChannelType.GuildCategory) throw DiscordErrors.nonTextChannel();
    const permissions = core.requireVisible(channelId);
    if ((permissions & PermissionFlagsBits.SendMessages) === 0n) throw DiscordErrors.missingPermissions();
    if (body.files.length > 0 && (permissions & PermissionFlagsBits.AttachFiles) === 0n) {
      throw DiscordErrors.missingPermissions();
    }
    const payload = core.applyEmbedPermission(core.parseMessagePayload(body.json), permissions, body.files);
    const nonceKey =
      payload.nonce === undefined || payload.nonce === null
        ? undefined
        : // "Another message created by the same author with the same nonce" (Create Message): in any channel.
          `${core.botUser.id}:${String(payload.nonce)}`;
    if (nonceKey !== undefined && payload.enforce_nonce === true) {
      const seen = core.world.nonces.get(nonceKey);
      const original = seen ? core.world.messages.get(seen.messageId) : undefined;
      if (seen && original && core.now() - seen.at <= core.options.nonceWindowMs) {
        // The message made by the first send comes back, with the nonce it was sent with.
        return { status: 200, body: { ...original.message, nonce: payload.nonce } };
      }
    }
    const message = core.messages.create(channel, payload, body.files, {
      type: MessageType.Default,
      author: core.botUser,
      allowEphemeral: false,
    });
    if (isEmptyMessage(message)) throw DiscordErrors.emptyMessage();
    const nonce = payload.nonce ?? undefined;
    if (nonceKey !== undefined) core.world.nonces.set(nonceKey, { messageId: message.id, at: core.now() });
    core.storeMessage(message, true, nonce);
    // The nonce is in this answer only: Discord does not keep it with the message, so reading the
    // message back (one or a list) leaves it out.
    return { status: 200, body: nonce === undefined ? message : { ...message, nonce } };
  }

  // ---------------------------------------------------------------- application commands

  #commandRoutes(
    base: string,
    authed: (method: string, template: string, handler: Route['handler']) => Route,
  ): Route[] {
    const { core } = this;
    const scope = (params: Readonly<Record<string, string>>) => {
      const applicationId = params['applicationId'] ?? '';
      if (applicationId !== core.options.applicationId) {
        // Another application's id (a bot user's id is its application's): 403 / 20012, as Discord
        // answers a token used with the wrong application's id (discordjs/discord.js#8286). An id
        // that is no application (a server's, a person's): 404 / 10002.
        if (core.world.users.get(applicationId)?.user.bot === true)
          throw DiscordErrors.notAuthorizedForApplication();
        throw DiscordErrors.unknownApplication();
      }
      const guildId = params['guildId'];
      // A server the application is not in (never invited, or invited without the
      // applications.commands scope, or no such server): Discord answers 403 Missing Access, not
      // Unknown Guild, to anything under its commands (the "50001 when registering guild commands"
      // of countless bot-library issues).
      if (guildId !== undefined && !core.world.guilds.has(guildId)) throw DiscordErrors.missingAccess();
      return { guildId, commands: core.world.commandsFor(guildId) };
    };
    const single = (params: Readonly<Record<string, string>>) => {
      const { guildId, commands } = scope(params);
      const command = commands.get(params['commandId'] ?? '');
      if (!command) throw DiscordErrors.unknownCommand();
      return { guildId, commands, command };
    };
    return [
      authed('GET', base, ({ params }) => ({ status: 200, body: [...scope(params).commands.values()] })),
      authed('PUT', base, async ({ params, body }) => {
        const { guildId, commands } = scope(params);
        const inputs = parseBody(
          z.array(commandSchema).max(COMMAND_LIST_MAX, maxLength(COMMAND_LIST_MAX)),
          (await body()).json,
        );
        throwFieldErrors(inputs.flatMap((input, index) => commandErrors(input, [index])));
        throwFieldErrors(this.#setErrors(inputs));
        // A list within 130 but with more of one type than it allows: 30032, as a POST gets.
        for (const [type, limit] of Object.entries(COMMAND_LIMITS)) {
          const ofType = inputs.filter(
            (input) => Number(input.type ?? ApplicationCommandType.ChatInput) === Number(type),
          ).length;
          if (ofType > limit) throw DiscordErrors.maxApplicationCommands(limit);
        }
        const byName = new Map(
          [...commands.values()].map((command) => [`${command.type}:${command.name}`, command]),
        );
        const next = inputs.map((input) =>
          this.#command(
            input,
            byName.get(`${input.type ?? ApplicationCommandType.ChatInput}:${input.name}`),
            guildId,
          ),
        );
        commands.clear();
        for (const command of next) commands.set(command.id, command);
        this.#commandsChanged(guildId, commands);
        return { status: 200, body: next };
      }),
      authed('POST', base, async ({ params, body }) => {
        const { guildId, commands } = scope(params);
        const input = parseBody(commandSchema, (await body()).json);
        throwFieldErrors(commandErrors(input));
        const type = input.type ?? ApplicationCommandType.ChatInput;
        const existing = [...commands.values()].find(
          (command) => command.type === type && command.name === input.name,
        );
        // One more than the type allows is 30032, naming the limit.
        const limit = COMMAND_LIMITS[type];
        const ofType = [...commands.values()].filter((command) => command.type === type).length;
        if (!existing && limit !== undefined && ofType >= limit)
          throw DiscordErrors.maxApplicationCommands(limit);
        const command = this.#command(input, existing, guildId);
        commands.set(command.id, command);
        this.#commandsChanged(guildId, commands);
        // Discord answers 200 when a command of that name was overwritten, 201 when it is new.
        return { status: existing ? 200 : 201, body: command };
      }),
      authed('GET', `${base}/:commandId`, ({ params }) => ({ status: 200, body: single(params).command })),
      authed('PATCH', `${base}/:commandId`, async ({ params, body }) => {
        const { guildId, commands, command } = single(params);
        const patch = parseBody(commandSchema.partial(), (await body()).json);
        const input: CommandInput = {
          name: command.name,
          type: command.type,
          description: command.description,
          ...(command.options ? { options: command.options } : {}),
          ...patch,
        } as CommandInput;
        throwFieldErrors(commandErrors(input));
        const updated = this.#command(input, command, guildId);
        commands.set(updated.id, updated);
        this.#commandsChanged(guildId, commands);
        return { status: 200, body: updated };
      }),
      authed('DELETE', `${base}/:commandId`, ({ params }) => {
        const { guildId, commands, command } = single(params);
        commands.delete(command.id);
        this.#commandsChanged(guildId, commands);
        return { status: 204 };
      }),
    ];
  }

  /** Rules on a whole set of commands: unique names per type. */
  #setErrors(commands: readonly { name: string; type?: number }[]): FieldError[] {
    const errors: FieldError[] = [];
    const seen = new Set<string>();
    for (const command of commands) {
      const type = command.type ?? ApplicationCommandType.ChatInput;
      const key = `${type}:${command.name}`;
      if (seen.has(key)) {
        errors.push({
          path: [],
          code: 'APPLICATION_COMMANDS_DUPLICATE_NAME',
          message: 'Application command names must be unique',
        });
      }
      seen.add(key);
    }
    return errors;
  }

  #command(
    input: CommandInput,
    existing: APIApplicationCommand | undefined,
    guildId: Snowflake | undefined,
  ): APIApplicationCommand {
    const { core } = this;
    const type = input.type ?? ApplicationCommandType.ChatInput;
    return {
      id: existing?.id ?? core.ids.next(),
      application_id: core.options.applicationId,
      version: core.ids.next(),
      type,
      name: input.name,
      name_localizations: input.name_localizations ?? null,
      description: type === ApplicationCommandType.ChatInput ? (input.description ?? '') : '',
      description_localizations: input.description_localizations ?? null,
      // The schema and `commandErrors` checked the options; Discord keeps them as sent.
      ...(input.options?.length ? { options: input.options as APIApplicationCommandOption[] } : {}),
      default_member_permissions: input.default_member_permissions ?? null,
      nsfw: input.nsfw ?? false,
      integration_types: input.integration_types ?? [0],
      contexts: input.contexts ?? null,
      ...(guildId === undefined ? { dm_permission: input.dm_permission ?? true } : { guild_id: guildId }),
    };
  }

  #commandsChanged(guildId: Snowflake | undefined, commands: Map<Snowflake, APIApplicationCommand>): void {
    this.core.events.emit('commands', {
      guildId: guildId ?? null,
      commands: structuredClone([...commands.values()]),
    });
    this.core.changed();
  }
}

/**
 * A boolean query parameter: "`True`, `true`, or `1` for true, with all other values resulting in
 * false" (Discord's Boolean Query Strings); absent is false.
 */
function booleanQuery(value: string | null): boolean {
  return value === 'True' || value === 'true' || value === '1';
}

/**
 * The query of `GET /channels/{id}/messages`: `limit` 1–100 (50 when absent) and snowflake
 * `before` / `after`, or 400 / 50035 with an entry per bad parameter, as Discord answers.
 */
function listMessagesQuery(query: URLSearchParams): {
  limit: number;
  around: string | null;
  before: string | null;
  after: string | null;
} {
  const errors: FieldError[] = [];
  const rawLimit = query.get('limit');
  let limit = 50;
  if (rawLimit !== null) {
    limit = Number(rawLimit);
    if (!/^[-+]?\d+$/.test(rawLimit.trim())) {
      errors.push({
        path: ['limit'],
        code: 'NUMBER_TYPE_COERCE',
        message: `Value "${rawLimit}" is not int.`,
      });
    } else if (limit < 1) {
      errors.push({
        path: ['limit'],
        code: 'NUMBER_TYPE_MIN',
        message: 'int value should be greater than or equal to 1.',
      });
    } else if (limit > 100) {
      errors.push({
        path: ['limit'],
        code: 'NUMBER_TYPE_MAX',
        message: 'int value should be less than or equal to 100.',
      });
    }
  }
  const snowflake = (key: 'around' | 'before' | 'after') => {
    const value = query.get(key);
    if (value !== null && !/^\d{1,20}$/.test(value)) {
      errors.push({ path: [key], code: 'NUMBER_TYPE_COERCE', message: `Value "${value}" is not snowflake.` });
    }
    return value;
  };
  const around = snowflake('around');
  const before = snowflake('before');
  const after = snowflake('after');
  throwFieldErrors(errors);
  return { limit, around, before, after };
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}
