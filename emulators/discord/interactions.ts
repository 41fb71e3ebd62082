import { randomBytes } from 'node:crypto';
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ComponentType,
  GatewayDispatchEvents,
  GatewayOpcodes,
  InteractionContextType,
  InteractionResponseType,
  InteractionType,
  Locale,
  MessageFlags,
  MessageReferenceType,
  MessageType,
  PermissionFlagsBits,
  RESTJSONErrorCodes,
} from 'discord-api-types/v10';
import type {
  APIApplicationCommand,
  APIApplicationCommandInteractionDataBasicOption,
  APIApplicationCommandInteractionDataOption,
  APIApplicationCommandOption,
  APIInteraction,
  APIInteractionDataResolved,
  APIInteractionDataResolvedChannel,
  APIMessageInteractionMetadata,
  APIMessage,
  RESTPostAPIInteractionCallbackWithResponseResult,
  Snowflake,
} from 'discord-api-types/v10';
import type { ParsedBody, UploadedFile } from './body.js';
import type { EmulatorCore, RefusedRequest, RouteResult } from './core.js';
import { DiscordErrors, DiscordHttpError } from './errors.js';
import { ATTACHMENT_SIZE_LIMIT, isEmptyMessage } from './messages.js';
import type { MessageOrigin } from './messages.js';
import {
  autocompleteResponseSchema,
  discordLength,
  interactionCallbackSchema,
  interactiveComponents,
  modalResponseSchema,
  parseBody,
} from './validation.js';
import type { ChoiceInput } from './validation.js';
import type { EmulatedMessage, EmulatorChannel } from './world.js';

/** A locale as the enum or its string value (`'de'`, `'en-US'`). */
export type LocaleInput = Locale | `${Locale}`;

/** A callback the emulator accepted. */
export interface InteractionCallbackRecord {
  type: InteractionResponseType;
  /** The callback's `data` as the bot sent it. */
  data: unknown;
  files: UploadedFile[];
  /** Milliseconds after the interaction was created, on the emulator's clock. */
  afterMs: number;
}

export interface SlashCommandOptions {
  guildId: Snowflake;
  channelId: Snowflake;
  userId: Snowflake;
  name: string;
  subcommandGroup?: string;
  subcommand?: string;
  /** Option values by name; user, channel, role and mentionable options take ids. */
  options?: Record<string, string | number | boolean>;
  locale?: LocaleInput;
}

/**
 * A command run in the bot's direct messages with the user (`dm: true`): no guild, no member; the DM
 * channel is made on first use. Only global commands whose `contexts` allow the bot's DM (or that
 * leave `contexts` unset) can be run there, as in Discord's client.
 */
export interface DmSlashCommandOptions extends Omit<SlashCommandOptions, 'guildId' | 'channelId'> {
  dm: true;
}

export interface AutocompleteOptions extends SlashCommandOptions {
  /** The option the user is typing in. */
  focused: string;
  /** How long to wait for the bot's choices (default: the interaction deadline plus a second). */
  timeoutMs?: number;
}

export interface DmAutocompleteOptions extends DmSlashCommandOptions {
  focused: string;
  timeoutMs?: number;
}

export interface ComponentClickOptions {
  userId: Snowflake;
  /** The message the component is on, as the emulator returned it (only its id is used). */
  message: Pick<APIMessage, 'id'>;
  customId: string;
  guildId?: Snowflake;
  channelId?: Snowflake;
  locale?: LocaleInput;
}

export interface SelectMenuOptions extends ComponentClickOptions {
  values: string[];
}

/** What a test holds for an interaction it started. */
export interface InteractionHandle {
  readonly id: Snowflake;
  readonly token: string;
  /** The INTERACTION_CREATE payload that was dispatched. */
  readonly payload: APIInteraction;
  /** Callbacks the emulator accepted, in order. */
  readonly callbacks: readonly InteractionCallbackRecord[];
  /** Requests about this interaction the emulator refused (late, twice acknowledged, invalid...). */
  readonly refusals: readonly RefusedRequest[];
  /** Follow-up messages in their current state. */
  readonly followUps: readonly EmulatedMessage[];
  /** The first accepted callback. */
  waitForCallback(timeoutMs?: number): Promise<InteractionCallbackRecord>;
  /**
   * The original response as the user sees it once it shows something: right after a type 4 or 7
   * callback, or after a type 5 or 6 callback at the first edit of `@original` (or the first
   * follow-up, which replaces a deferred reply).
   */
  reply(timeoutMs?: number): Promise<EmulatedMessage>;
  /** The original response right after its `n`-th edit through the webhook (1-based). */
  waitForEdit(n?: number, timeoutMs?: number): Promise<EmulatedMessage>;
  /** The `n`-th follow-up (1-based), in its current state. */
  waitForFollowUp(timeoutMs?: number, n?: number): Promise<EmulatedMessage>;
  /** The original response's current state, if there is one. */
  original(): EmulatedMessage | undefined;
}

/** Everything the emulator tracks about one interaction. */
export class InteractionState {
  acknowledged = false;
  responseType: InteractionResponseType | undefined;
  originalMessageId: Snowflake | undefined;
  /** Whether the original response shows something (not a deferred "thinking" state). */
  originalReady = false;
  readonly edits: EmulatedMessage[] = [];
  readonly followUpIds: Snowflake[] = [];
  readonly callbacks: InteractionCallbackRecord[] = [];
  readonly refusals: RefusedRequest[] = [];
  choices: ChoiceInput[] | undefined;

  constructor(
    readonly id: Snowflake,
    readonly token: string,
    readonly kind: InteractionType,
    readonly payload: APIInteraction,
    /** Undefined in the bot's direct messages. */
    readonly guildId: Snowflake | undefined,
    readonly channelId: Snowflake,
    readonly userId: Snowflake,
    readonly createdAt: number,
    /** `/name sub` or `button "id"`, for error messages. */
    readonly label: string,
    /** The command as the response's `interaction.name` shows it: name, group and subcommand. */
    readonly commandName: string | undefined,
    readonly sourceMessageId: Snowflake | undefined,
  ) {}

  describe(now: number): string {
    const callbacks = this.callbacks.map((callback) => callback.type).join(', ') || 'none';
    const refused = this.refusals
      .map(
        (refusal) =>
          `${refusal.method} ${refusal.status} ${refusal.code} "${refusal.message}" at ${refusal.ageMs} ms`,
      )
      .join('; ');
    return `${this.label} (interaction ${this.id}, ${now - this.createdAt} ms old; callbacks: ${callbacks}${
      refused ? `; refused: ${refused}` : ''
    })`;
  }

  /** Refused for good: the deadline passed before any callback was accepted. */
  expiredUnanswered(): boolean {
    return (
      !this.acknowledged &&
      this.refusals.some((refusal) => refusal.code === Number(RESTJSONErrorCodes.UnknownInteraction))
    );
  }
}

const DEFAULT_WAIT_MS = 5_000;

class Handle implements InteractionHandle {
  constructor(
    private readonly core: EmulatorCore,
    private readonly state: InteractionState,
  ) {}

  get id(): Snowflake {
    return this.state.id;
  }
  get token(): string {
    return this.state.token;
  }
  get payload(): APIInteraction {
    return structuredClone(this.state.payload);
  }
  get callbacks(): InteractionCallbackRecord[] {
    return this.state.callbacks.map((callback) => ({ ...callback }));
  }
  get refusals(): RefusedRequest[] {
    return this.state.refusals.map((refusal) => ({ ...refusal }));
  }
  get followUps(): EmulatedMessage[] {
    return this.state.followUpIds.flatMap((id) => {
      const stored = this.core.world.messages.get(id);
      return stored ? [structuredClone(stored.message)] : [];
    });
  }

  original(): EmulatedMessage | undefined {
    const id = this.state.originalMessageId;
    const stored = id === undefined ? undefined : this.core.world.messages.get(id);
    return stored ? structuredClone(stored.message) : undefined;
  }

  waitForCallback(timeoutMs = DEFAULT_WAIT_MS): Promise<InteractionCallbackRecord> {
    return this.wait(() => this.state.callbacks[0], timeoutMs, 'its first callback');
  }

  reply(timeoutMs = DEFAULT_WAIT_MS): Promise<EmulatedMessage> {
    return this.wait(() => (this.state.originalReady ? this.original() : undefined), timeoutMs, 'its reply');
  }

  waitForEdit(n = 1, timeoutMs = DEFAULT_WAIT_MS): Promise<EmulatedMessage> {
    return this.wait(
      () => {
        const edit = this.state.edits[n - 1];
        return edit ? structuredClone(edit) : undefined;
      },
      timeoutMs,
      `edit #${n} of its original response`,
    );
  }

  waitForFollowUp(timeoutMs = DEFAULT_WAIT_MS, n = 1): Promise<EmulatedMessage> {
    return this.wait(() => this.followUps[n - 1], timeoutMs, `follow-up #${n}`);
  }

  private wait<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return this.core.signal.waitFor(
      () => {
        const value = probe();
        if (value !== undefined) return value;
        if (this.state.expiredUnanswered()) {
          throw new Error(`No ${what}: Discord refused ${this.state.describe(this.core.now())}`);
        }
        return undefined;
      },
      timeoutMs,
      () => `${what} of ${this.state.describe(this.core.now())}`,
      this.state.id,
    );
  }
}

/**
 * The channel an interaction comes from, as Discord sends it: a partial channel with the invoking
 * member's `permissions` there and without `permission_overwrites` (a bot that needs those reads
 * the channel from its cache, filled by GUILD_CREATE and CHANNEL_* events).
 */
function partialChannel(
  channel: EmulatorChannel,
  permissions: bigint,
): NonNullable<APIInteraction['channel']> {
  const partial: Record<string, unknown> = {
    ...structuredClone(channel),
    permissions: permissions.toString(),
  };
  delete partial['permission_overwrites'];
  // discord-api-types types this channel as a partial channel, without `permissions`.
  return partial as unknown as NonNullable<APIInteraction['channel']>;
}

/**
 * The fields Discord's resolved data keeps of a channel option ("Partial Channel objects only have
 * id, name, type, permissions, last_message_id, last_pin_timestamp, nsfw, parent_id, guild_id,
 * flags, rate_limit_per_user, topic and position"), with the invoking member's permissions there.
 */
const RESOLVED_CHANNEL_FIELDS = [
  'id',
  'name',
  'type',
  'last_message_id',
  'last_pin_timestamp',
  'nsfw',
  'parent_id',
  'guild_id',
  'flags',
  'rate_limit_per_user',
  'topic',
  'position',
] as const;

function resolvedChannel(channel: EmulatorChannel, permissions: bigint) {
  const fields: Record<string, unknown> = Object.fromEntries(
    RESOLVED_CHANNEL_FIELDS.flatMap((field) => {
      const value = (channel as unknown as Partial<Record<string, unknown>>)[field];
      return value === undefined ? [] : [[field, structuredClone(value)]];
    }),
  );
  return { ...fields, permissions: permissions.toString() } as unknown as APIInteractionDataResolvedChannel;
}

// ---------------------------------------------------------------- starting interactions

function interactionToken(id: Snowflake): string {
  return Buffer.from(`interaction:${id}:${randomBytes(48).toString('base64url')}`).toString('base64url');
}

export function toLocale(value: LocaleInput | undefined, fallback: Locale): Locale {
  if (value === undefined) return fallback;
  const locale = Object.values(Locale).find((candidate) => candidate === value);
  if (!locale) throw new Error(`Unknown locale "${value}"`);
  return locale;
}

type OptionValue = string | number | boolean;
/** Where a command is run, and by whom. */
/** Where a command is run (no guild: the bot's DM channel with the user), and by whom. */
interface InvokedIn {
  guildId: Snowflake | undefined;
  channelId: Snowflake;
  userId: Snowflake;
}

/**
 * The bot's permissions in a DM channel, as `app_permissions` carries them there: what a DM allows
 * (no roles or overwrites apply), with Attach Files, Embed Links, Mention Everyone and Use External
 * Emojis, which Discord's interaction docs name for DMs with the app's bot user.
 */
const DM_APP_PERMISSIONS =
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.MentionEveryone |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.UseExternalEmojis |
  PermissionFlagsBits.UseApplicationCommands;

/**
 * Whether Discord's client offers a global command in the bot's DM: its `contexts` include the bot's
 * DM, or, unset, `dm_permission` is not false; and it is installed to servers. (Discord offers
 * user-installed commands there too, with the user as the authorizing owner: the emulator does not
 * model user installs.)
 */
function offeredInDms(command: APIApplicationCommand): boolean {
  const contexts =
    command.contexts ?? (command.dm_permission === false ? [] : [InteractionContextType.BotDM]);
  const installs = command.integration_types ?? [ApplicationIntegrationType.GuildInstall];
  return (
    contexts.includes(InteractionContextType.BotDM) &&
    installs.includes(ApplicationIntegrationType.GuildInstall)
  );
}

/** Creates interactions the way a user's client would, and sends them through the gateway. */
export class InteractionDriver {
  constructor(private readonly core: EmulatorCore) {}

  slash(options: SlashCommandOptions | DmSlashCommandOptions): InteractionHandle {
    const where = this.invokedIn(options);
    const command = this.findCommand(where.guildId, options.name);
    const { data } = this.commandData(command, options, where, undefined);
    const base = this.base(where.guildId, where.channelId, options.userId, options.locale);
    const id = this.core.ids.next();
    const token = interactionToken(id);
    const payload: APIInteraction = {
      ...base,
      id,
      token,
      type: InteractionType.ApplicationCommand,
      data: { ...data, type: ApplicationCommandType.ChatInput },
    };
    const fullName = [options.name, options.subcommandGroup, options.subcommand].filter(Boolean).join(' ');
    return this.start(payload, where, `/${fullName}`, fullName, undefined);
  }

  autocomplete(options: AutocompleteOptions | DmAutocompleteOptions): InteractionHandle {
    const where = this.invokedIn(options);
    const command = this.findCommand(where.guildId, options.name);
    const { data } = this.commandData(command, options, where, options.focused);
    const base = this.base(where.guildId, where.channelId, options.userId, options.locale);
    const id = this.core.ids.next();
    const token = interactionToken(id);
    // Autocomplete options carry what the user typed, so a focused number option holds a string;
    // commandData builds them that way.
    const payload: APIInteraction = {
      ...base,
      id,
      token,
      type: InteractionType.ApplicationCommandAutocomplete,
      data: {
        ...data,
        type: ApplicationCommandType.ChatInput,
        // Never empty: the focused option is always there.
        options: (data.options ??
          []) as APIApplicationCommandInteractionDataOption<InteractionType.ApplicationCommandAutocomplete>[],
      },
    };
    return this.start(
      payload,
      where,
      `autocomplete /${options.name} (${options.focused})`,
      options.name,
      undefined,
    );
  }

  clickButton(options: ComponentClickOptions): InteractionHandle {
    const { message, channelId, guildId } = this.componentTarget(options, ComponentType.Button);
    const base = this.base(guildId, channelId, options.userId, options.locale);
    const id = this.core.ids.next();
    const payload: APIInteraction = {
      ...base,
      id,
      token: interactionToken(id),
      type: InteractionType.MessageComponent,
      data: { custom_id: options.customId, component_type: ComponentType.Button },
      message,
    };
    return this.start(
      payload,
      { guildId, channelId, userId: options.userId },
      `button "${options.customId}"`,
      undefined,
      message.id,
    );
  }

  selectMenu(options: SelectMenuOptions): InteractionHandle {
    const { message, channelId, guildId } = this.componentTarget(options, ComponentType.StringSelect);
    const base = this.base(guildId, channelId, options.userId, options.locale);
    const id = this.core.ids.next();
    const payload: APIInteraction = {
      ...base,
      id,
      token: interactionToken(id),
      type: InteractionType.MessageComponent,
      data: {
        custom_id: options.customId,
        component_type: ComponentType.StringSelect,
        values: [...options.values],
      },
      message,
    };
    return this.start(
      payload,
      { guildId, channelId, userId: options.userId },
      `select "${options.customId}"`,
      undefined,
      message.id,
    );
  }

  private start(
    payload: APIInteraction,
    where: InvokedIn,
    label: string,
    commandName: string | undefined,
    sourceMessageId: Snowflake | undefined,
  ): InteractionHandle {
    const { gateway } = this.core;
    const sessions =
      where.guildId === undefined
        ? gateway.sessionCountForDms()
        : gateway.sessionCountForGuild(where.guildId);
    if (sessions === 0) {
      throw new Error(
        `No gateway session holds ${where.guildId === undefined ? 'shard 0, which gets direct messages' : `guild ${where.guildId}`}: log the client in (and wait for ready) before sending ${label}`,
      );
    }
    const state = new InteractionState(
      payload.id,
      payload.token,
      payload.type,
      payload,
      where.guildId,
      where.channelId,
      where.userId,
      this.core.now(),
      label,
      commandName,
      sourceMessageId,
    );
    this.core.registerInteraction(state);
    const dispatch = {
      op: GatewayOpcodes.Dispatch,
      t: GatewayDispatchEvents.InteractionCreate,
      d: payload,
    } as const;
    if (where.guildId === undefined) gateway.dispatchToDms(dispatch);
    else gateway.dispatchToGuild(where.guildId, dispatch);
    if (this.core.events.listenerCount('interaction') > 0)
      this.core.events.emit('interaction', structuredClone(payload));
    return new Handle(this.core, state);
  }

  /** Where the command runs: the given guild channel, or the bot's DM channel with the user. */
  private invokedIn(options: SlashCommandOptions | DmSlashCommandOptions): InvokedIn {
    if ('dm' in options) {
      const channel = this.core.world.dmChannel(options.userId);
      return { guildId: undefined, channelId: channel.id, userId: options.userId };
    }
    return { guildId: options.guildId, channelId: options.channelId, userId: options.userId };
  }

  private base(
    guildId: Snowflake | undefined,
    channelId: Snowflake,
    userId: Snowflake,
    locale: LocaleInput | undefined,
  ) {
    return guildId === undefined
      ? this.dmBase(channelId, userId, locale)
      : this.guildBase(guildId, channelId, userId, locale);
  }

  /** In the bot's DMs: the user instead of a member, the DM channel, no guild fields. */
  private dmBase(channelId: Snowflake, userId: Snowflake, locale: LocaleInput | undefined) {
    const { world } = this.core;
    const channel = world.dmChannels.get(channelId);
    if (!channel) throw new Error(`No DM channel ${channelId} in the emulator`);
    const userRecord = world.users.get(userId);
    if (!userRecord) throw new Error(`No user ${userId} in the emulator (create one with createUser)`);
    return {
      application_id: this.core.options.applicationId,
      version: 1 as const,
      channel_id: channelId,
      channel: structuredClone(channel),
      user: userRecord.user,
      app_permissions: DM_APP_PERMISSIONS.toString(),
      locale: toLocale(locale, userRecord.locale),
      entitlements: [],
      // A guild-installed app used in its own DM: "0" stands for the guild (Discord's docs).
      authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: '0' as Snowflake },
      context: InteractionContextType.BotDM,
      attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
    };
  }

  private guildBase(
    guildId: Snowflake,
    channelId: Snowflake,
    userId: Snowflake,
    locale: LocaleInput | undefined,
  ) {
    const { world } = this.core;
    const guild = world.guilds.get(guildId);
    if (!guild) throw new Error(`No guild ${guildId} in the emulator`);
    const channel = world.channels.get(channelId);
    if (!channel) throw new Error(`No channel ${channelId} in the emulator`);
    if (channel.guild_id !== guildId) throw new Error(`Channel ${channelId} is not in guild ${guildId}`);
    const userRecord = world.users.get(userId);
    const member = world.member(guildId, userId);
    if (!userRecord || !member)
      throw new Error(`No user ${userId} in the emulator (create one with createUser)`);
    const permissions = world.permissionsIn(channelId, userId);
    return {
      application_id: this.core.options.applicationId,
      version: 1 as const,
      guild_id: guildId,
      guild: { id: guildId, locale: guild.preferredLocale, features: [] },
      channel_id: channelId,
      channel: partialChannel(channel, permissions),
      member: { ...member, user: userRecord.user, permissions: permissions.toString() },
      app_permissions: world.appPermissionsIn(channelId).toString(),
      locale: toLocale(locale, userRecord.locale),
      guild_locale: guild.preferredLocale,
      entitlements: [],
      authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: guildId },
      context: InteractionContextType.Guild,
      attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
    };
  }

  private findCommand(guildId: Snowflake | undefined, name: string): APIApplicationCommand {
    const isChatInput = (command: APIApplicationCommand) =>
      command.name === name && command.type === ApplicationCommandType.ChatInput;
    const guildCommands =
      guildId === undefined ? [] : [...(this.core.world.guildCommands.get(guildId)?.values() ?? [])];
    const globalCommands = [...this.core.world.globalCommands.values()];
    const command = guildCommands.find(isChatInput) ?? globalCommands.find(isChatInput);
    if (command && guildId === undefined && !offeredInDms(command)) {
      throw new Error(
        `/${name} is not offered in the bot's DMs (contexts ${JSON.stringify(command.contexts)}, integration types ${JSON.stringify(command.integration_types)}, dm_permission ${String(command.dm_permission)})`,
      );
    }
    if (command) return command;
    if (guildId === undefined) {
      const known = globalCommands.map((candidate) => `/${candidate.name}`).join(', ') || 'none';
      throw new Error(
        `No global command /${name} to run in a DM (global commands: ${known}; guild commands are not offered in DMs)`,
      );
    }
    const known =
      [...guildCommands, ...globalCommands].map((candidate) => `/${candidate.name}`).join(', ') || 'none';
    throw new Error(
      `No command /${name} is registered for guild ${guildId} or globally (registered: ${known})`,
    );
  }

  private componentTarget(options: ComponentClickOptions, type: ComponentType) {
    const stored = this.core.world.messages.get(options.message.id);
    if (!stored)
      throw new Error(`Message ${options.message.id} is not known to the emulator (or was deleted)`);
    const message = stored.message;
    const components = [...interactiveComponents(message.components)];
    const target = components.find(
      (component) => component['type'] === type && component['custom_id'] === options.customId,
    );
    if (!target) {
      const ids = components
        .map((component) => JSON.stringify(component['custom_id'] ?? component['url']))
        .join(', ');
      throw new Error(
        `Message ${message.id} has no ${ComponentType[type]} with custom_id "${options.customId}" (components: ${ids || 'none'})`,
      );
    }
    if (target['disabled'] === true) throw new Error(`Component "${options.customId}" is disabled`);
    const channelId = options.channelId ?? message.channel_id;
    const guildId = options.guildId ?? message.guild_id ?? this.core.world.channels.get(channelId)?.guild_id;
    if (guildId === undefined && !this.core.world.dmChannels.has(channelId))
      throw new Error(`Cannot tell the guild of message ${message.id}`);
    return { message: structuredClone(message), channelId, guildId };
  }

  /** Builds `data` for a chat-input command from the registered definition and the given values. */
  private commandData(
    command: APIApplicationCommand,
    options: Pick<SlashCommandOptions, 'options' | 'subcommandGroup' | 'subcommand'>,
    where: InvokedIn,
    focused: string | undefined,
  ) {
    const definitions = command.options ?? [];
    const values = { ...(options.options ?? {}) };
    if (focused !== undefined && !(focused in values)) values[focused] = '';
    const resolved: APIInteractionDataResolved = {};
    const path = `/${command.name}`;
    let leaves: APIApplicationCommandOption[] = definitions;
    let wrap = (
      built: APIApplicationCommandInteractionDataBasicOption[],
    ): APIApplicationCommandInteractionDataOption[] => built;
    const findSub = (
      list: readonly APIApplicationCommandOption[],
      type: ApplicationCommandOptionType,
      name: string,
    ) => {
      const found = list.find((option) => option.type === type && option.name === name);
      if (!found) {
        const names = list.filter((option) => option.type === type).map((option) => option.name);
        throw new Error(
          `${path} has no ${ApplicationCommandOptionType[type]} "${name}" (has: ${names.join(', ') || 'none'})`,
        );
      }
      return found;
    };
    if (options.subcommandGroup !== undefined) {
      const group = findSub(
        definitions,
        ApplicationCommandOptionType.SubcommandGroup,
        options.subcommandGroup,
      );
      if (options.subcommand === undefined)
        throw new Error(`${path} ${options.subcommandGroup} needs a subcommand`);
      const groupOptions =
        group.type === ApplicationCommandOptionType.SubcommandGroup ? (group.options ?? []) : [];
      const sub = findSub(groupOptions, ApplicationCommandOptionType.Subcommand, options.subcommand);
      leaves = sub.type === ApplicationCommandOptionType.Subcommand ? (sub.options ?? []) : [];
      const groupName = options.subcommandGroup;
      const subName = options.subcommand;
      wrap = (built) => [
        {
          type: ApplicationCommandOptionType.SubcommandGroup,
          name: groupName,
          options: [{ type: ApplicationCommandOptionType.Subcommand, name: subName, options: built }],
        },
      ];
    } else if (options.subcommand !== undefined) {
      const sub = findSub(definitions, ApplicationCommandOptionType.Subcommand, options.subcommand);
      leaves = sub.type === ApplicationCommandOptionType.Subcommand ? (sub.options ?? []) : [];
      const subName = options.subcommand;
      wrap = (built) => [{ type: ApplicationCommandOptionType.Subcommand, name: subName, options: built }];
    } else if (
      definitions.some(
        (option) =>
          option.type === ApplicationCommandOptionType.Subcommand ||
          option.type === ApplicationCommandOptionType.SubcommandGroup,
      )
    ) {
      throw new Error(
        `${path} needs a subcommand (has: ${definitions.map((option) => option.name).join(', ')})`,
      );
    }

    const built: APIApplicationCommandInteractionDataBasicOption[] = [];
    for (const [name, value] of Object.entries(values)) {
      const definition = leaves.find((option) => option.name === name);
      if (!definition) {
        throw new Error(
          `${path} has no option "${name}" (has: ${leaves.map((option) => option.name).join(', ') || 'none'})`,
        );
      }
      built.push(this.option(definition, value, where, name === focused, resolved, path));
    }
    if (focused === undefined) {
      for (const definition of leaves) {
        if ('required' in definition && definition.required === true && !(definition.name in values)) {
          throw new Error(`${path} needs its required option "${definition.name}"`);
        }
      }
    } else {
      const definition = leaves.find((option) => option.name === focused);
      if (!definition || !('autocomplete' in definition) || definition.autocomplete !== true) {
        throw new Error(`Option "${focused}" of ${path} does not have autocomplete enabled`);
      }
    }
    const hasResolved = Object.keys(resolved).length > 0;
    const given = wrap(
      built,
    ) as APIApplicationCommandInteractionDataOption<InteractionType.ApplicationCommand>[];
    return {
      data: {
        id: command.id,
        name: command.name,
        ...(command.guild_id === undefined ? {} : { guild_id: command.guild_id }),
        // A command run with no options at all comes without the field (it is optional), as
        // Discord sends it; a subcommand's own list is there, empty or not.
        ...(given.length === 0 ? {} : { options: given }),
        ...(hasResolved ? { resolved } : {}),
      },
    };
  }

  /**
   * One option value, typed by its definition, with its resolved object for ids. `where` is where
   * and by whom the command is run, which the permissions of resolved channels and members follow.
   */
  private option(
    definition: APIApplicationCommandOption,
    value: OptionValue,
    where: InvokedIn,
    focused: boolean,
    resolved: APIInteractionDataResolved,
    path: string,
  ): APIApplicationCommandInteractionDataBasicOption {
    const { world } = this.core;
    const { guildId } = where;
    const name = definition.name;
    const fail = (expected: string): never => {
      throw new Error(`Option "${name}" of ${path} takes ${expected}, got ${JSON.stringify(value)}`);
    };
    const checkChoices = () => {
      if (focused || !('choices' in definition) || !definition.choices?.length) return;
      const choices = definition.choices as { value: string | number }[];
      if (!choices.some((choice) => choice.value === value)) {
        fail(`one of ${choices.map((choice) => JSON.stringify(choice.value)).join(', ')}`);
      }
    };
    if (focused) {
      // The focused option carries the text typed so far, also for number options.
      const typed = String(value);
      switch (definition.type) {
        case ApplicationCommandOptionType.String:
          return { type: definition.type, name, value: typed, focused: true };
        case ApplicationCommandOptionType.Integer:
          return { type: definition.type, name, value: typed, focused: true };
        case ApplicationCommandOptionType.Number:
          return { type: definition.type, name, value: typed, focused: true };
        default:
          throw new Error(
            `Option "${name}" of ${path} cannot be focused: only text and number options autocomplete`,
          );
      }
    }
    switch (definition.type) {
      case ApplicationCommandOptionType.String: {
        if (typeof value !== 'string') return fail('a string');
        checkChoices();
        if (definition.min_length !== undefined && discordLength(value) < definition.min_length)
          fail(`at least ${definition.min_length} characters`);
        if (definition.max_length !== undefined && discordLength(value) > definition.max_length)
          fail(`at most ${definition.max_length} characters`);
        return { type: definition.type, name, value };
      }
      case ApplicationCommandOptionType.Integer:
      case ApplicationCommandOptionType.Number: {
        const isInteger = definition.type === ApplicationCommandOptionType.Integer;
        if (typeof value !== 'number' || (isInteger && !Number.isInteger(value))) {
          return fail(isInteger ? 'an integer' : 'a number');
        }
        checkChoices();
        if (definition.min_value !== undefined && value < definition.min_value)
          fail(`a value ≥ ${definition.min_value}`);
        if (definition.max_value !== undefined && value > definition.max_value)
          fail(`a value ≤ ${definition.max_value}`);
        return isInteger
          ? { type: ApplicationCommandOptionType.Integer, name, value }
          : { type: ApplicationCommandOptionType.Number, name, value };
      }
      case ApplicationCommandOptionType.Boolean:
        if (typeof value !== 'boolean') return fail('a boolean');
        return { type: definition.type, name, value };
      case ApplicationCommandOptionType.User: {
        if (typeof value !== 'string' || !this.resolveUser(value, where, resolved))
          return fail('the id of a known user');
        return { type: definition.type, name, value };
      }
      case ApplicationCommandOptionType.Channel: {
        const channel = typeof value === 'string' ? world.channels.get(value) : undefined;
        if (guildId === undefined) return fail('no channel: a DM has no server channels to pick');
        if (!channel || channel.guild_id !== guildId) return fail(`the id of a channel in guild ${guildId}`);
        if (
          definition.channel_types?.length &&
          !definition.channel_types.some((type) => type === channel.type)
        ) {
          fail(`a channel of type ${definition.channel_types.join('/')}`);
        }
        resolved.channels = {
          ...resolved.channels,
          [channel.id]: resolvedChannel(channel, world.permissionsIn(channel.id, where.userId)),
        };
        return { type: definition.type, name, value: channel.id };
      }
      case ApplicationCommandOptionType.Role: {
        if (typeof value !== 'string' || guildId === undefined || !this.resolveRole(value, guildId, resolved))
          return fail('the id of a role in the guild');
        return { type: definition.type, name, value };
      }
      case ApplicationCommandOptionType.Mentionable: {
        if (typeof value !== 'string') return fail('a user or role id');
        const isRole = guildId !== undefined && this.resolveRole(value, guildId, resolved);
        if (!this.resolveUser(value, where, resolved) && !isRole) {
          fail('the id of a known user or role');
        }
        return { type: definition.type, name, value };
      }
      default:
        throw new Error(
          `Option "${name}" of ${path} has type ${ApplicationCommandOptionType[definition.type]}, which the emulator cannot send`,
        );
    }
  }

  /** A user option's user and member; the member's permissions are those in the command's channel. */
  private resolveUser(id: Snowflake, where: InvokedIn, resolved: APIInteractionDataResolved): boolean {
    if (where.guildId === undefined) {
      // In a DM there are users, not members.
      const user = this.core.world.user(id);
      if (user) resolved.users = { ...resolved.users, [id]: user };
      return user !== undefined;
    }
    const member = this.core.world.member(where.guildId, id);
    if (!member) return false;
    const { user, deaf: _deaf, mute: _mute, ...rest } = member;
    const permissions = this.core.world.permissionsIn(where.channelId, id).toString();
    resolved.users = { ...resolved.users, [id]: user };
    resolved.members = { ...resolved.members, [id]: { ...rest, permissions } };
    return true;
  }

  private resolveRole(id: Snowflake, guildId: Snowflake, resolved: APIInteractionDataResolved): boolean {
    const role = this.core.world.guilds.get(guildId)?.roles.find((candidate) => candidate.id === id);
    if (!role) return false;
    resolved.roles = { ...resolved.roles, [id]: { ...role } };
    return true;
  }
}

// ---------------------------------------------------------------- the bot's side: callbacks and webhooks

const ALLOWED_CALLBACKS: Readonly<Partial<Record<InteractionType, readonly InteractionResponseType[]>>> = {
  [InteractionType.ApplicationCommand]: [
    InteractionResponseType.ChannelMessageWithSource,
    InteractionResponseType.DeferredChannelMessageWithSource,
    InteractionResponseType.Modal,
  ],
  [InteractionType.MessageComponent]: [
    InteractionResponseType.ChannelMessageWithSource,
    InteractionResponseType.DeferredChannelMessageWithSource,
    InteractionResponseType.DeferredMessageUpdate,
    InteractionResponseType.UpdateMessage,
    InteractionResponseType.Modal,
  ],
  [InteractionType.ApplicationCommandAutocomplete]: [
    InteractionResponseType.ApplicationCommandAutocompleteResult,
  ],
  [InteractionType.ModalSubmit]: [
    InteractionResponseType.ChannelMessageWithSource,
    InteractionResponseType.DeferredChannelMessageWithSource,
    InteractionResponseType.DeferredMessageUpdate,
    InteractionResponseType.UpdateMessage,
  ],
};

/** The REST routes an interaction's token opens: the callback and the interaction webhook. */
export class InteractionRoutes {
  constructor(private readonly core: EmulatorCore) {}

  /** Records Discord's refusals against the interaction before passing them on. */
  private async guarded<T>(
    state: InteractionState,
    method: string,
    path: string,
    run: () => Promise<T> | T,
  ): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof DiscordHttpError) {
        this.core.refuse(state, method, path, {
          status: error.status,
          code: error.code,
          message: error.body.message,
        });
      }
      throw error;
    }
  }

  /** `POST /interactions/{id}/{token}/callback` */
  async callback(
    id: Snowflake,
    token: string,
    body: ParsedBody,
    withResponse: boolean,
    path: string,
  ): Promise<RouteResult> {
    const state = this.core.interactions.get(id);
    if (!state || state.token !== token) throw DiscordErrors.unknownInteraction();
    return this.guarded(state, 'POST', path, () => this.acceptCallback(state, body, withResponse));
  }

  private acceptCallback(state: InteractionState, body: ParsedBody, withResponse: boolean): RouteResult {
    const { core } = this;
    if (state.acknowledged) throw DiscordErrors.alreadyAcknowledged();
    if (core.now() - state.createdAt > core.options.interactionDeadlineMs)
      throw DiscordErrors.unknownInteraction();
    const { type, data } = parseBody(interactionCallbackSchema, body.json);
    const allowed = ALLOWED_CALLBACKS[state.kind] ?? [];
    if (!allowed.some((candidate) => candidate === type)) {
      throw DiscordErrors.invalidFormBody([
        {
          path: ['type'],
          code: 'BASE_TYPE_CHOICES',
          // Discord lists the callback types in braces (discord/discord-api-docs#6455:
          // "Value must be one of {1, 4, 5, 6, 7, 8, 9, 11}."); here, those this interaction takes.
          message: `Value must be one of {${allowed.join(', ')}}.`,
        },
      ]);
    }
    let message: EmulatedMessage | undefined;
    switch (type) {
      case InteractionResponseType.ChannelMessageWithSource: {
        const payload = core.parseMessagePayload(data, ['data']);
        const channel = core.messageChannelOrThrow(state.channelId);
        message = core.messages.create(channel, payload, body.files, this.origin(state, 'response'));
        if (isEmptyMessage(message)) throw DiscordErrors.emptyMessage();
        state.originalMessageId = message.id;
        state.originalReady = true;
        core.storeMessage(message, !isEphemeral(message));
        break;
      }
      case InteractionResponseType.DeferredChannelMessageWithSource: {
        const payload = core.parseMessagePayload(data ?? {}, ['data']);
        const channel = core.messageChannelOrThrow(state.channelId);
        // "The only valid message flag you may use is EPHEMERAL" (Discord's docs): others are dropped.
        const flags = (payload.flags ?? 0) & MessageFlags.Ephemeral;
        message = core.messages.create(channel, { flags }, [], {
          ...this.origin(state, 'response'),
          extraFlags: MessageFlags.Loading,
        });
        state.originalMessageId = message.id;
        core.storeMessage(message, !isEphemeral(message));
        break;
      }
      case InteractionResponseType.DeferredMessageUpdate:
        state.originalMessageId = state.sourceMessageId;
        break;
      case InteractionResponseType.UpdateMessage: {
        const payload = core.parseMessagePayload(data ?? {}, ['data']);
        const source =
          state.sourceMessageId === undefined ? undefined : core.world.messages.get(state.sourceMessageId);
        if (!source) throw DiscordErrors.unknownMessage();
        message = core.replaceMessage(core.messages.edit(source.message, payload, body.files));
        state.originalMessageId = message.id;
        state.originalReady = true;
        break;
      }
      case InteractionResponseType.ApplicationCommandAutocompleteResult:
        state.choices = parseBody(autocompleteResponseSchema, data, ['data']).choices;
        break;
      case InteractionResponseType.Modal:
        parseBody(modalResponseSchema, data, ['data']);
        break;
      default:
        throw DiscordErrors.badRequest();
    }
    state.acknowledged = true;
    state.responseType = type;
    state.callbacks.push({ type, data, files: body.files, afterMs: core.now() - state.createdAt });
    core.events.emit('callback', { interactionId: state.id, type, data });
    core.changed(state.id);
    if (!withResponse) return { status: 204 };
    const result: RESTPostAPIInteractionCallbackWithResponseResult = {
      interaction: {
        id: state.id,
        type: state.kind,
        ...(message
          ? {
              response_message_id: message.id,
              response_message_loading: ((message.flags ?? 0) & MessageFlags.Loading) !== 0,
              response_message_ephemeral: isEphemeral(message),
            }
          : {}),
      },
      // The resource's message is "only present if type is either CHANNEL_MESSAGE_WITH_SOURCE or
      // UPDATE_MESSAGE" (Discord's docs): a deferred reply names its message in `interaction` only.
      resource: { type, ...(message && showsMessage(type) ? { message: structuredClone(message) } : {}) },
    };
    return { status: 200, body: result };
  }

  /** Who sends the interaction's initial response or one of its follow-ups, and what it carries. */
  private origin(state: InteractionState, kind: 'response' | 'followUp'): MessageOrigin {
    const { core } = this;
    const user = core.world.user(state.userId) ?? core.botUser;
    // In the bot's DM, "0" stands for the guild (see `dmBase`).
    const owners = { [ApplicationIntegrationType.GuildInstall]: state.guildId ?? '0' };
    const originalResponseId = kind === 'followUp' ? state.originalMessageId : undefined;
    const extra =
      originalResponseId === undefined ? {} : { original_response_message_id: originalResponseId };
    const metadata: APIMessageInteractionMetadata =
      state.kind === InteractionType.MessageComponent && state.sourceMessageId !== undefined
        ? {
            id: state.id,
            type: InteractionType.MessageComponent,
            user,
            authorizing_integration_owners: owners,
            interacted_message_id: state.sourceMessageId,
            ...extra,
          }
        : {
            id: state.id,
            type: InteractionType.ApplicationCommand,
            user,
            authorizing_integration_owners: owners,
            ...extra,
          };
    const isCommand = state.kind === InteractionType.ApplicationCommand;
    // "Responses to Message Components do not include [interaction], instead including a message
    // reference object as components always exist on preexisting messages" (Discord's docs).
    const reference =
      state.kind === InteractionType.MessageComponent &&
      state.sourceMessageId !== undefined &&
      kind === 'response'
        ? {
            messageReference: {
              type: MessageReferenceType.Default,
              message_id: state.sourceMessageId,
              channel_id: state.channelId,
              ...(state.guildId === undefined ? {} : { guild_id: state.guildId }),
            },
          }
        : {};
    return {
      type: isCommand ? MessageType.ChatInputCommand : MessageType.Default,
      author: core.botUser,
      webhookId: core.options.applicationId,
      applicationId: core.options.applicationId,
      interactionMetadata: metadata,
      ...(isCommand
        ? { interaction: { id: state.id, type: state.kind, name: state.commandName ?? '', user } }
        : {}),
      ...reference,
      allowEphemeral: true,
    };
  }

  /**
   * The interaction a webhook token belongs to. Discord answers 401 / 50027 "Invalid Webhook Token"
   * for a token it does not know and for one older than 15 minutes, and 404 / 10015 "Unknown
   * Webhook" for an interaction not acknowledged yet.
   */
  private webhookState(
    applicationId: Snowflake,
    token: string,
    method: string,
    path: string,
  ): InteractionState {
    const { core } = this;
    if (applicationId !== core.options.applicationId) throw DiscordErrors.unknownWebhook();
    const state = core.interactionsByToken.get(token);
    if (!state) throw DiscordErrors.invalidWebhookToken();
    const refuse = (error: DiscordHttpError) => {
      core.refuse(state, method, path, {
        status: error.status,
        code: error.code,
        message: error.body.message,
      });
      return error;
    };
    if (core.now() - state.createdAt > core.options.interactionTokenTtlMs)
      throw refuse(DiscordErrors.invalidWebhookToken());
    if (!state.acknowledged) throw refuse(DiscordErrors.unknownWebhook());
    return state;
  }

  private webhookMessage(state: InteractionState, messageId: string): EmulatedMessage {
    const id = messageId === '@original' ? state.originalMessageId : messageId;
    const isOwn = id !== undefined && (id === state.originalMessageId || state.followUpIds.includes(id));
    const stored = isOwn ? this.core.world.messages.get(id) : undefined;
    if (!stored) throw DiscordErrors.unknownMessage();
    return stored.message;
  }

  /** `GET /webhooks/{app}/{token}/messages/{id|@original}` */
  async getMessage(
    applicationId: Snowflake,
    token: string,
    messageId: string,
    path: string,
  ): Promise<RouteResult> {
    const state = this.webhookState(applicationId, token, 'GET', path);
    return this.guarded(state, 'GET', path, () => ({
      status: 200,
      body: this.webhookMessage(state, messageId),
    }));
  }

  /** `PATCH /webhooks/{app}/{token}/messages/{id|@original}` */
  async editMessage(
    applicationId: Snowflake,
    token: string,
    messageId: string,
    body: ParsedBody,
    path: string,
  ): Promise<RouteResult> {
    const state = this.webhookState(applicationId, token, 'PATCH', path);
    return this.guarded(state, 'PATCH', path, () => {
      const current = this.webhookMessage(state, messageId);
      const payload = this.core.parseMessagePayload(body.json);
      const edited = this.core.replaceMessage(this.core.messages.edit(current, payload, body.files));
      if (edited.id === state.originalMessageId) {
        state.originalReady = true;
        state.edits.push(structuredClone(edited));
        this.core.changed(state.id);
      }
      return { status: 200, body: edited };
    });
  }

  /** `DELETE /webhooks/{app}/{token}/messages/{id|@original}` */
  async deleteMessage(
    applicationId: Snowflake,
    token: string,
    messageId: string,
    path: string,
  ): Promise<RouteResult> {
    const state = this.webhookState(applicationId, token, 'DELETE', path);
    return this.guarded(state, 'DELETE', path, () => {
      this.core.deleteMessage(this.webhookMessage(state, messageId).id);
      return { status: 204 };
    });
  }

  /**
   * `POST /webhooks/{app}/{token}`: a follow-up. The first follow-up after a deferred reply that was
   * never edited replaces the "thinking" message instead of posting a new one, keeping the
   * deferral's ephemeral state, as Discord does. The answer is always 200 with the message: for
   * follow-ups "wait is always true" (Discord's docs), with or without `?wait=true`.
   */
  async followUp(
    applicationId: Snowflake,
    token: string,
    body: ParsedBody,
    path: string,
  ): Promise<RouteResult> {
    const state = this.webhookState(applicationId, token, 'POST', path);
    return this.guarded(state, 'POST', path, () => {
      const { core } = this;
      const payload = core.parseMessagePayload(body.json);
      const original =
        state.originalMessageId === undefined ? undefined : core.world.messages.get(state.originalMessageId);
      let message: EmulatedMessage;
      if (
        state.responseType === InteractionResponseType.DeferredChannelMessageWithSource &&
        !state.originalReady &&
        original
      ) {
        message = core.replaceMessage(
          core.messages.edit(original.message, { ...payload, flags: null }, body.files),
        );
        state.originalReady = true;
      } else {
        const channel = core.messageChannelOrThrow(state.channelId);
        message = core.messages.create(channel, payload, body.files, this.origin(state, 'followUp'));
        if (isEmptyMessage(message)) throw DiscordErrors.emptyMessage();
        core.storeMessage(message, !isEphemeral(message));
      }
      state.followUpIds.push(message.id);
      core.changed(state.id);
      return { status: 200, body: message };
    });
  }
}

function showsMessage(type: InteractionResponseType): boolean {
  return (
    type === InteractionResponseType.ChannelMessageWithSource ||
    type === InteractionResponseType.UpdateMessage
  );
}

function isEphemeral(message: EmulatedMessage): boolean {
  return ((message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
}
