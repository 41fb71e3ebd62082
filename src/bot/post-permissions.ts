import {
  type GuildChannelType,
  OverwriteType,
  PermissionFlagsBits,
  PermissionsBitField,
  Routes,
  type APIGuild,
  type APIGuildChannel,
  type APIGuildMember,
  type Client,
} from 'discord.js';
import type { ScheduleKind } from '../services/schedules/types.js';

/** What the bot needs in a channel to make a scheduled post there, by the name the messages use. */
export const POST_PERMISSIONS = [
  ['ViewChannel', PermissionFlagsBits.ViewChannel],
  ['SendMessages', PermissionFlagsBits.SendMessages],
  ['EmbedLinks', PermissionFlagsBits.EmbedLinks],
  ['AttachFiles', PermissionFlagsBits.AttachFiles],
] as const;

export type PostPermission = (typeof POST_PERMISSIONS)[number][0];

/**
 * The link that adds the bot to one server, as the README's invite link does (the `bot` and
 * `applications.commands` scopes, the post permissions above), with that server chosen.
 */
export function botInviteUrl(applicationId: string, guildId: string): string {
  const permissions = POST_PERMISSIONS.reduce((bits, [, flag]) => bits | flag, 0n);
  const query = new URLSearchParams({
    client_id: applicationId,
    scope: 'bot applications.commands',
    permissions: permissions.toString(),
    guild_id: guildId,
    disable_guild_select: 'true',
  });
  return `https://discord.com/oauth2/authorize?${query.toString()}`;
}

/**
 * The post permissions `granted` lacks, in the order above, for a post of `kind`: Attach Files only
 * for the kinds that carry a chart (`today`, `week`); the current weather is an embed alone.
 */
export function lackingPostPermissions(
  granted: Readonly<PermissionsBitField>,
  kind: ScheduleKind,
): PostPermission[] {
  return POST_PERMISSIONS.filter(([name]) => name !== 'AttachFiles' || kind !== 'current')
    .filter(([, flag]) => !granted.has(flag))
    .map(([name]) => name);
}

/**
 * The bot's permissions in a channel as the cache has them; undefined when they are not known here
 * (the channel or the bot's member not in the cache, as when this process does not hold the
 * server's shard).
 */
export function cachedPermissionsIn(
  client: Client,
  channelId: string,
): Readonly<PermissionsBitField> | undefined {
  const channel = client.channels.cache.get(channelId);
  if (!channel || !('guild' in channel) || !('permissionsFor' in channel)) return undefined;
  const me = channel.guild.members.me;
  return (me && channel.permissionsFor(me)) ?? undefined;
}

/**
 * The bot's permissions in a channel as Discord has them, asked over REST (the channel, the server
 * and the bot's own member: three requests, two when the member is given), for a process that
 * does not hold the server's shard and so has nothing in its cache. Computed as Discord's
 * permissions documentation gives it, and as discord.js's `permissionsFor` computes them from the
 * cache, so both name the same missing grants:
 * the server's owner and Administrator have all; otherwise @everyone's and the member's roles', then
 * the channel's @everyone, role and member overwrites in that order. Neither applies the implicit
 * denials (no View Channel, nothing; no Send Messages, no Embed Links or Attach Files): a post is
 * refused for those anyway, and the grant to give is the one named. A timeout is not applied: the
 * poster asks about it on its own. Undefined when Discord cannot be asked or refuses (a channel the
 * bot cannot view is not shown to it).
 */
export async function permissionsOverRest(
  client: Client,
  guildId: string,
  channelId: string,
  /** The bot's own member, when the caller has just fetched it (one request less). */
  knownMember?: APIGuildMember,
): Promise<Readonly<PermissionsBitField> | undefined> {
  const botId = client.user?.id;
  if (botId === undefined) return undefined;
  try {
    const [channel, guild, member] = (await Promise.all([
      client.rest.get(Routes.channel(channelId)),
      client.rest.get(Routes.guild(guildId)),
      knownMember ?? client.rest.get(Routes.guildMember(guildId, botId)),
    ])) as [APIGuildChannel<GuildChannelType>, APIGuild, APIGuildMember];
    const all = PermissionsBitField.All;
    if (guild.owner_id === botId) return new PermissionsBitField(all).freeze();
    const rolePermissions = new Map(guild.roles.map((role) => [role.id, BigInt(role.permissions)]));
    let bits = rolePermissions.get(guildId) ?? 0n;
    for (const role of member.roles) bits |= rolePermissions.get(role) ?? 0n;
    if ((bits & PermissionFlagsBits.Administrator) !== 0n) return new PermissionsBitField(all).freeze();
    const overwrites = channel.permission_overwrites ?? [];
    const apply = (allow: bigint, deny: bigint) => {
      bits = (bits & ~deny) | allow;
    };
    const everyone = overwrites.find((o) => o.id === guildId);
    if (everyone) apply(BigInt(everyone.allow), BigInt(everyone.deny));
    let allow = 0n;
    let deny = 0n;
    for (const o of overwrites) {
      if (o.type === OverwriteType.Role && o.id !== guildId && member.roles.includes(o.id)) {
        allow |= BigInt(o.allow);
        deny |= BigInt(o.deny);
      }
    }
    apply(allow, deny);
    const own = overwrites.find((o) => o.type === OverwriteType.Member && o.id === botId);
    if (own) apply(BigInt(own.allow), BigInt(own.deny));
    return new PermissionsBitField(bits).freeze();
  } catch {
    return undefined;
  }
}
