import type { ChatInputCommandInteraction, PermissionsBitField } from 'discord.js';
import { botInviteUrl, lackingPostPermissions } from '../../bot/post-permissions.js';
import { UserError } from '../../bot/errors.js';
import type { ScheduleMessages } from '../../bot/i18n/schedule-messages.js';
import type { ScheduleKind } from '../../services/schedules/types.js';
import { withinMs } from '../../services/time-limit.js';

/** The permissions `granted` lacks for a post of `kind`, by name in the reader's language. */
export function missingPermissions(
  granted: Readonly<PermissionsBitField>,
  kind: ScheduleKind,
  t: ScheduleMessages,
): string[] {
  return lackingPostPermissions(granted, kind).map((name) => t.permissionNames[name]);
}

export interface Standing {
  /** The bot's permissions in the channel, or undefined when they cannot be worked out. */
  granted: Readonly<PermissionsBitField> | undefined;
  /** When the bot's timeout on this server ends (milliseconds), if it is timed out now. */
  timedOutUntil: number | undefined;
}

export const UNKNOWN_STANDING: Standing = { granted: undefined, timedOutUntil: undefined };

/**
 * How long the command waits for Discord to send the bot's own member, before its reply is deferred:
 * Discord fails an interaction not answered within 3 s, and a slow or rate-limited answer would
 * take that. Past it, the check is not made and the reply says so.
 */
const FETCH_ME_BUDGET_MS = 1_000;

/**
 * The bot's permissions in the channel it is to post in, and whether it is timed out on the server.
 * For the channel the command came from, the permissions Discord sent with the interaction
 * (`app_permissions`, always current; where a payload leaves them out, as older ones could, the
 * cache's). For another channel, worked out from the cache (the channel's overwrites, the bot's
 * roles), fetching the bot's own member if the guild came without it; undefined when that cannot
 * be done, and the reply says the check was not made rather than refusing or claiming success.
 *
 * A timed-out member keeps only View Channel and Read Message History until the timeout ends, and
 * Discord does not say whether `app_permissions` is masked then. The schedule is for the days after
 * it too, so while the bot is timed out its permissions are worked out from the cache, which leaves
 * the timeout out (discord.js #9730), and the reply says when posting starts again. The bot's own
 * member is kept up to date by GUILD_MEMBER_UPDATE, which Discord sends for the bot itself without
 * the Guild Members intent; a timeout that ends by itself leaves its time in the past.
 */
export async function botStanding(
  interaction: ChatInputCommandInteraction,
  channelId: string,
  now: number,
): Promise<Standing> {
  const guild = interaction.guild;
  const here = channelId === interaction.channelId;
  const me =
    guild?.members.me ??
    (here || !guild
      ? undefined
      : await withinMs(guild.members.fetchMe(), FETCH_ME_BUDGET_MS, 'no answer').catch(() => undefined));
  const until = me?.communicationDisabledUntilTimestamp ?? undefined;
  const timedOutUntil = until !== undefined && until > now ? until : undefined;
  // An interaction that comes without `app_permissions` reads as no permission at all in
  // discord.js: the cache decides then, as for another channel.
  const sent = interaction.appPermissions;
  if (here && timedOutUntil === undefined && sent.bitfield !== 0n) return { granted: sent, timedOutUntil };
  const target = guild?.channels.cache.get(channelId);
  return { granted: (me && target?.permissionsFor(me)) ?? undefined, timedOutUntil };
}

/**
 * Refuses (with the reason, in the reader's language) to start posting in a channel that, as far
 * as the bot can tell, it cannot post in: one the server no longer has (Discord sends every channel
 * of a server to the bot, so one missing from a cached server is gone, unless the server is
 * unavailable, an outage, and came without them), or one where the bot lacks a permission it needs.
 * What cannot be checked is let through.
 */
export async function requirePostable(
  interaction: ChatInputCommandInteraction,
  channelId: string,
  kind: ScheduleKind,
  t: ScheduleMessages,
  now: number,
): Promise<void> {
  const guild = interaction.guild;
  // A server Discord says is unavailable (an outage) comes without its channels: none is missing.
  if (guild?.available && !guild.channels.cache.has(channelId)) throw new UserError(t.channelGone(channelId));
  const { granted } = await botStanding(interaction, channelId, now);
  const missing = granted ? missingPermissions(granted, kind, t) : [];
  if (missing.length > 0) throw new UserError(t.missingPermissions(channelId, missing));
}

/**
 * Refuses, with the link that adds the bot, a command that would have the bot post on a server it
 * is not a member of: one the app was added to with the `applications.commands` scope alone, or
 * whose bot was removed. Its commands still run there (they are answered through the interaction),
 * but every post to a channel would be refused with Missing Access, and a schedule added would
 * only be paused at its first post. A server the bot is in is always in discord.js's cache by the
 * time an interaction is handled (READY lists it, available or not), so a server id with nothing
 * cached is one the bot is not in.
 */
export function requireBotInServer(interaction: ChatInputCommandInteraction, t: ScheduleMessages): void {
  if (interaction.inGuild() && !interaction.inCachedGuild())
    throw new UserError(t.botNotInServer(botInviteUrl(interaction.applicationId, interaction.guildId)));
}
