import { PermissionFlagsBits, type Client, type PermissionsBitField } from 'discord.js';
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
