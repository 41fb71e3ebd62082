import {
  ChannelType,
  GuildDefaultMessageNotifications,
  GuildExplicitContentFilter,
  GuildMFALevel,
  GuildNSFWLevel,
  GuildPremiumTier,
  GuildSystemChannelFlags,
  GuildVerificationLevel,
  Locale,
  OverwriteType,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import type {
  APIApplicationCommand,
  APIAttachment,
  APIDMChannel,
  ChannelFlags,
  APIGuild,
  APIGuildCategoryChannel,
  APIGuildMember,
  APIGuildVoiceChannel,
  APIMessage,
  APINewsChannel,
  APIOverwrite,
  APIRole,
  APITextChannel,
  APIUser,
  GuildMemberFlags,
  RoleFlags,
  Snowflake,
} from 'discord-api-types/v10';
import type { SnowflakeGenerator } from './snowflake.js';
import { snowflakeTimestamp } from './snowflake.js';

/** The guild channel kinds the emulator can create. */
export type EmulatorChannel =
  APITextChannel | APINewsChannel | APIGuildVoiceChannel | APIGuildCategoryChannel;
export type EmulatorChannelType = EmulatorChannel['type'];

/**
 * A message as the emulator returns it. Discord's REST message objects leave `guild_id` out; the
 * emulator adds it because gateway messages carry it and tests find it handy.
 */
export type EmulatedMessage = APIMessage & { guild_id?: Snowflake };

export interface GuildRecord {
  id: Snowflake;
  name: string;
  ownerId: Snowflake;
  preferredLocale: Locale;
  roles: APIRole[];
  /** When the bot joined: the guild's creation in the emulator, or when it was added again. */
  joinedAt: string;
  /**
   * Whether the bot user is a member. False where the app was added with the
   * `applications.commands` scope alone (its commands run there, answered through the interaction),
   * or its bot was removed: no gateway events of the guild, and REST answers Missing Access.
   */
  botMember: boolean;
}

export interface UserRecord {
  user: APIUser;
  locale: Locale;
  joinedAt: string;
}

export interface StoredMessage {
  message: EmulatedMessage;
  /** False for ephemeral messages: only the interaction's user sees them, not the channel. */
  inChannel: boolean;
  /**
   * The nonce it was created with. Discord does not keep it with the message: only the create
   * answer (and the gateway's MESSAGE_CREATE) carries it, so reads of the message leave it out.
   */
  nonce?: string | number;
}

export interface StoredAttachment {
  attachment: APIAttachment;
  data: Buffer;
  channelId: Snowflake;
  /** The message it was uploaded with: a file an embed shows is not in that message's `attachments`. */
  messageId: Snowflake;
}

/** Permissions every member has through @everyone, and the bot through its own role. */
export const DEFAULT_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.UseApplicationCommands;

// The flag enums have no member for "none"; Discord sends 0.
const NO_ROLE_FLAGS = 0 as RoleFlags;
const NO_MEMBER_FLAGS = 0 as GuildMemberFlags;

export const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);
/** What a member loses in a channel where Send Messages is denied (implicit permissions). */
const WITH_SEND_MESSAGES =
  PermissionFlagsBits.MentionEveryone |
  PermissionFlagsBits.SendTTSMessages |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.EmbedLinks;

/** All a timed-out member keeps of their permissions in a channel. */
const TIMED_OUT_KEEPS = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory;

/**
 * What exists in the emulated Discord: users, guilds, channels, messages, attachments and
 * application commands. Plain data and lookups; no HTTP and no gateway here.
 */
export class World {
  readonly users = new Map<Snowflake, UserRecord>();
  readonly guilds = new Map<Snowflake, GuildRecord>();
  readonly channels = new Map<Snowflake, EmulatorChannel>();
  readonly messages = new Map<Snowflake, StoredMessage>();
  readonly channelMessageIds = new Map<Snowflake, Snowflake[]>();
  readonly attachments = new Map<Snowflake, StoredAttachment>();
  readonly globalCommands = new Map<Snowflake, APIApplicationCommand>();
  readonly guildCommands = new Map<Snowflake, Map<Snowflake, APIApplicationCommand>>();
  /** `channel:author:nonce` → the message created with that nonce and when. */
  readonly nonces = new Map<string, { messageId: Snowflake; at: number }>();
  readonly botRoleIds = new Map<Snowflake, Snowflake>();
  /** The bot's direct-message channel with each user, by channel id (made when first used). */
  readonly dmChannels = new Map<Snowflake, APIDMChannel>();
  /** `guild:user` → when the member's timeout ends (ISO 8601), as Discord keeps it after it ends. */
  readonly timeouts = new Map<string, string>();

  constructor(
    private readonly ids: SnowflakeGenerator,
    readonly botUser: APIUser,
    private readonly now: () => number = Date.now,
  ) {}

  // ------------------------------------------------------------ users

  addUser(input: {
    username?: string;
    globalName?: string | null;
    locale?: Locale;
    bot?: boolean;
  }): UserRecord {
    const id = this.ids.next();
    const username = input.username ?? `user${this.users.size + 1}`;
    const user: APIUser = {
      id,
      username,
      discriminator: '0',
      global_name: input.globalName === undefined ? null : input.globalName,
      avatar: null,
      ...(input.bot === true ? { bot: true } : {}),
    };
    const record: UserRecord = {
      user,
      locale: input.locale ?? Locale.EnglishUS,
      joinedAt: new Date(snowflakeTimestamp(id)).toISOString(),
    };
    this.users.set(id, record);
    return record;
  }

  user(id: Snowflake): APIUser | undefined {
    if (id === this.botUser.id) return this.botUser;
    return this.users.get(id)?.user;
  }

  // ------------------------------------------------------------ guilds

  addGuild(input: {
    id?: Snowflake;
    name?: string;
    ownerId: Snowflake;
    preferredLocale?: Locale;
    botMember?: boolean;
  }): GuildRecord {
    const id = input.id ?? this.ids.next();
    const everyone: APIRole = this.role(id, '@everyone', DEFAULT_PERMISSIONS, 0);
    const botRole: APIRole = {
      ...this.role(this.ids.next(), this.botUser.username, DEFAULT_PERMISSIONS, 1),
      managed: true,
      tags: { bot_id: this.botUser.id },
    };
    const guild: GuildRecord = {
      id,
      name: input.name ?? `Guild ${this.guilds.size + 1}`,
      ownerId: input.ownerId,
      preferredLocale: input.preferredLocale ?? Locale.EnglishUS,
      roles: [everyone, botRole],
      joinedAt: new Date(snowflakeTimestamp(id)).toISOString(),
      botMember: input.botMember ?? true,
    };
    this.guilds.set(id, guild);
    this.botRoleIds.set(id, botRole.id);
    return guild;
  }

  private role(id: Snowflake, name: string, permissions: bigint, position: number): APIRole {
    return {
      id,
      name,
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      icon: null,
      unicode_emoji: null,
      position,
      permissions: permissions.toString(),
      managed: false,
      mentionable: false,
      flags: NO_ROLE_FLAGS,
    };
  }

  apiGuild(guild: GuildRecord): APIGuild {
    return {
      id: guild.id,
      name: guild.name,
      icon: null,
      icon_hash: null,
      splash: null,
      discovery_splash: null,
      owner_id: guild.ownerId,
      afk_channel_id: null,
      afk_timeout: 300,
      widget_enabled: false,
      widget_channel_id: null,
      verification_level: GuildVerificationLevel.None,
      default_message_notifications: GuildDefaultMessageNotifications.OnlyMentions,
      explicit_content_filter: GuildExplicitContentFilter.Disabled,
      roles: guild.roles.map((role) => ({ ...role })),
      emojis: [],
      features: [],
      mfa_level: GuildMFALevel.None,
      application_id: null,
      system_channel_id: null,
      system_channel_flags: GuildSystemChannelFlags.SuppressJoinNotifications,
      rules_channel_id: null,
      max_presences: null,
      max_members: 500_000,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: GuildPremiumTier.None,
      premium_subscription_count: 0,
      preferred_locale: guild.preferredLocale,
      public_updates_channel_id: null,
      max_video_channel_users: 25,
      max_stage_video_channel_users: 50,
      nsfw_level: GuildNSFWLevel.Default,
      stickers: [],
      premium_progress_bar_enabled: false,
      hub_type: null,
      safety_alerts_channel_id: null,
      incidents_data: null,
    };
  }

  /**
   * Every user is a member of every guild (the emulator has no joining), and the bot of every guild
   * it was added to (see `GuildRecord.botMember`).
   */
  member(guildId: Snowflake, userId: Snowflake): APIGuildMember | undefined {
    const guild = this.guilds.get(guildId);
    const user = this.user(userId);
    if (!guild || !user) return undefined;
    const isBot = userId === this.botUser.id;
    if (isBot && !guild.botMember) return undefined;
    const botRoleId = this.botRoleIds.get(guildId);
    return {
      user,
      nick: null,
      avatar: null,
      banner: null,
      roles: isBot && botRoleId ? [botRoleId] : [],
      joined_at: isBot ? guild.joinedAt : (this.users.get(userId)?.joinedAt ?? guild.joinedAt),
      premium_since: null,
      deaf: false,
      mute: false,
      flags: NO_MEMBER_FLAGS,
      pending: false,
      communication_disabled_until: this.timeouts.get(`${guildId}:${userId}`) ?? null,
    };
  }

  /**
   * Whether a member is timed out now. Discord leaves `communication_disabled_until` as it was when
   * a timeout ends by itself (no event says so): a time in the past means no longer timed out.
   */
  isTimedOut(guildId: Snowflake, userId: Snowflake): boolean {
    const until = this.timeouts.get(`${guildId}:${userId}`);
    return until !== undefined && Date.parse(until) > this.now();
  }

  /** The bot's DM channel with a user, made the first time it is needed, as Discord does. */
  dmChannel(userId: Snowflake): APIDMChannel {
    for (const channel of this.dmChannels.values())
      if (channel.recipients?.[0]?.id === userId) return channel;
    const user = this.user(userId);
    if (!user) throw new Error(`No user ${userId} in the emulator (create one with createUser)`);
    const channel: APIDMChannel = {
      id: this.ids.next(),
      type: ChannelType.DM,
      recipients: [user],
      last_message_id: null,
      flags: 0 as ChannelFlags,
      name: null,
    };
    this.dmChannels.set(channel.id, channel);
    return channel;
  }

  // ------------------------------------------------------------ channels

  addChannel(
    guildId: Snowflake,
    input: { name?: string; type?: EmulatorChannelType; parentId?: Snowflake; topic?: string },
  ): EmulatorChannel {
    const id = this.ids.next();
    const position = this.guildChannels(guildId).length;
    const name = input.name ?? `channel-${position + 1}`;
    const base = {
      id,
      guild_id: guildId,
      name,
      position,
      permission_overwrites: [] as APIOverwrite[],
      nsfw: false,
      flags: 0,
    };
    let channel: EmulatorChannel;
    switch (input.type ?? ChannelType.GuildText) {
      case ChannelType.GuildCategory:
        channel = { ...base, type: ChannelType.GuildCategory, parent_id: null };
        break;
      case ChannelType.GuildVoice:
        channel = {
          ...base,
          type: ChannelType.GuildVoice,
          parent_id: input.parentId ?? null,
          bitrate: 64_000,
          user_limit: 0,
          rtc_region: null,
          last_message_id: null,
          rate_limit_per_user: 0,
        };
        break;
      case ChannelType.GuildAnnouncement:
        channel = {
          ...base,
          type: ChannelType.GuildAnnouncement,
          parent_id: input.parentId ?? null,
          topic: input.topic ?? null,
          last_message_id: null,
          rate_limit_per_user: 0,
        };
        break;
      default:
        channel = {
          ...base,
          type: ChannelType.GuildText,
          parent_id: input.parentId ?? null,
          topic: input.topic ?? null,
          last_message_id: null,
          rate_limit_per_user: 0,
        };
    }
    this.channels.set(id, channel);
    return channel;
  }

  guildChannels(guildId: Snowflake): EmulatorChannel[] {
    return [...this.channels.values()].filter((channel) => channel.guild_id === guildId);
  }

  setOverwrite(channelId: Snowflake, overwrite: APIOverwrite): void {
    const channel = this.channels.get(channelId);
    if (!channel) throw new Error(`No channel ${channelId}`);
    const others = (channel.permission_overwrites ?? []).filter((existing) => existing.id !== overwrite.id);
    channel.permission_overwrites = [...others, overwrite];
  }

  /**
   * A member's permissions in a channel, computed as Discord does: @everyone and role permissions,
   * owner and Administrator get everything, then the @everyone, role and member overwrites in that
   * order. Without View Channel nothing else counts; without Send Messages, neither do the
   * permissions that only add to a message (Discord's "implicit permissions"). A member in a timeout
   * keeps only View Channel and Read Message History until it ends (the owner and administrators
   * cannot be timed out, and are not masked).
   */
  permissionsIn(channelId: Snowflake, userId: Snowflake): bigint {
    const channel = this.channels.get(channelId);
    if (!channel) return 0n;
    const guildId = channel.guild_id;
    const guild = guildId === undefined ? undefined : this.guilds.get(guildId);
    const member = guildId === undefined ? undefined : this.member(guildId, userId);
    if (!guild || !member) return 0n;
    if (guild.ownerId === userId) return ALL_PERMISSIONS;
    return this.#computedIn(channel, guild, new Set(member.roles), userId);
  }

  /**
   * The app's permissions in a channel, as an interaction's `app_permissions` carries them: its bot's
   * where the bot is a member; otherwise those of @everyone there, with Embed Links and Attach Files,
   * which an app's answers to interactions always have (Discord's change log, "Calculated
   * Permissions in Interaction Payloads", and discord/discord-api-docs#5316).
   */
  appPermissionsIn(channelId: Snowflake): bigint {
    const channel = this.channels.get(channelId);
    const guild = channel?.guild_id === undefined ? undefined : this.guilds.get(channel.guild_id);
    if (!channel || !guild || guild.botMember) return this.permissionsIn(channelId, this.botUser.id);
    const everyone = this.#computedIn(channel, guild, new Set(), undefined);
    return everyone | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.AttachFiles;
  }

  /** `permissionsIn` for a member with these roles (none: @everyone alone), owner or not aside. */
  #computedIn(
    channel: EmulatorChannel,
    guild: GuildRecord,
    roleIds: ReadonlySet<Snowflake>,
    userId: Snowflake | undefined,
  ): bigint {
    let permissions = 0n;
    for (const role of guild.roles) {
      if (role.id === guild.id || roleIds.has(role.id)) permissions |= BigInt(role.permissions);
    }
    if ((permissions & PermissionFlagsBits.Administrator) !== 0n) return ALL_PERMISSIONS;
    const overwrites = channel.permission_overwrites ?? [];
    const apply = (allow: bigint, deny: bigint) => {
      permissions = (permissions & ~deny) | allow;
    };
    const everyone = overwrites.find((overwrite) => overwrite.id === guild.id);
    if (everyone) apply(BigInt(everyone.allow), BigInt(everyone.deny));
    let roleAllow = 0n;
    let roleDeny = 0n;
    for (const overwrite of overwrites) {
      if (overwrite.type === OverwriteType.Role && roleIds.has(overwrite.id)) {
        roleAllow |= BigInt(overwrite.allow);
        roleDeny |= BigInt(overwrite.deny);
      }
    }
    apply(roleAllow, roleDeny);
    const own = overwrites.find(
      (overwrite) => overwrite.type === OverwriteType.Member && overwrite.id === userId,
    );
    if (own) apply(BigInt(own.allow), BigInt(own.deny));
    if ((permissions & PermissionFlagsBits.ViewChannel) === 0n) return 0n;
    if (userId !== undefined && this.isTimedOut(guild.id, userId)) permissions &= TIMED_OUT_KEEPS;
    // Implicit permissions: without Send Messages, a member cannot mention everyone, send TTS,
    // attach files or embed links in the channel either, whatever else allows them.
    if ((permissions & PermissionFlagsBits.SendMessages) === 0n) permissions &= ~WITH_SEND_MESSAGES;
    return permissions;
  }

  // ------------------------------------------------------------ messages

  putMessage(stored: StoredMessage): void {
    const id = stored.message.id;
    const isNew = !this.messages.has(id);
    this.messages.set(id, stored);
    if (isNew && stored.inChannel) {
      const channelId = stored.message.channel_id;
      const list = this.channelMessageIds.get(channelId) ?? [];
      list.push(id);
      this.channelMessageIds.set(channelId, list);
      const channel = this.channels.get(channelId);
      if (channel && 'last_message_id' in channel) channel.last_message_id = id;
    }
  }

  deleteMessage(id: Snowflake): void {
    const stored = this.messages.get(id);
    if (!stored) return;
    this.messages.delete(id);
    const list = this.channelMessageIds.get(stored.message.channel_id);
    if (list) {
      const index = list.indexOf(id);
      if (index >= 0) list.splice(index, 1);
    }
  }

  channelMessages(channelId: Snowflake): EmulatedMessage[] {
    const ids = this.channelMessageIds.get(channelId) ?? [];
    return ids.flatMap((id) => {
      const stored = this.messages.get(id);
      return stored ? [stored.message] : [];
    });
  }

  // ------------------------------------------------------------ commands

  commandsFor(guildId: Snowflake | undefined): Map<Snowflake, APIApplicationCommand> {
    if (guildId === undefined) return this.globalCommands;
    let commands = this.guildCommands.get(guildId);
    if (!commands) {
      commands = new Map();
      this.guildCommands.set(guildId, commands);
    }
    return commands;
  }
}
