import {
  ChannelType,
  PermissionFlagsBits,
  type ChatInputCommandInteraction,
  type PermissionsBitField,
} from 'discord.js';
import type { WeatherServices } from '../../bot/context.js';
import { UserError } from '../../bot/errors.js';
import { localize, localizedChoice } from '../../bot/i18n/index.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import { md } from '../../bot/render/music-text.js';
import { renderScheduleSaved } from '../../bot/render/schedules.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { defaultUnitsFor } from '../../domain/weather/units.js';
import { decodePlace } from '../../domain/weather/places.js';
import {
  canonicalTimeZone,
  timeZonesMatching,
  zoneAt,
  zonesForAbbreviation,
} from '../../domain/weather/zones.js';
import { parseDays, parseTimeOfDay } from '../../services/schedules/input.js';
import { ScheduleLimitError } from '../../services/schedules/store.js';
import { SCHEDULE_KINDS, type Schedule, type ScheduleKind } from '../../services/schedules/types.js';
import { withinMs } from '../../services/time-limit.js';
import { deferWithPlace, PLACE_OPTION, placeAutocomplete, placeOption, weatherRequest } from './shared.js';
import { requireManager, SCHEDULE_GROUP } from './schedule-shared.js';

const NEEDED = [
  ['ViewChannel', PermissionFlagsBits.ViewChannel],
  ['SendMessages', PermissionFlagsBits.SendMessages],
  ['EmbedLinks', PermissionFlagsBits.EmbedLinks],
  ['AttachFiles', PermissionFlagsBits.AttachFiles],
] as const;

/** The channel option offers only these; the default (this channel) may be a thread or a voice chat. */
const POSTABLE: readonly ChannelType[] = [ChannelType.GuildText, ChannelType.GuildAnnouncement];

export default {
  group: SCHEDULE_GROUP,
  name: 'add',
  build: (sub) =>
    localize(sub, SCHEDULE_TEXT.subcommands.add)
      .addStringOption(placeOption(undefined, true))
      .addStringOption((o) => localize(o, SCHEDULE_TEXT.options.time).setRequired(true).setMaxLength(10))
      .addStringOption((o) =>
        localize(o, SCHEDULE_TEXT.options.timezone).setAutocomplete(true).setMaxLength(64),
      )
      .addChannelOption((o) =>
        localize(o, SCHEDULE_TEXT.options.channel).addChannelTypes(
          ChannelType.GuildText,
          ChannelType.GuildAnnouncement,
        ),
      )
      .addStringOption((o) =>
        localize(o, SCHEDULE_TEXT.options.kind).addChoices(
          ...SCHEDULE_KINDS.map((kind) => localizedChoice(SCHEDULE_TEXT.kinds[kind], kind)),
        ),
      )
      .addStringOption((o) =>
        localize(o, SCHEDULE_TEXT.options.units).addChoices(
          ...(['metric', 'imperial', 'standard'] as const).map((units) =>
            localizedChoice(SCHEDULE_TEXT.units[units], units),
          ),
        ),
      )
      .addStringOption((o) => localize(o, SCHEDULE_TEXT.options.days).setMaxLength(60)),
  async autocomplete(interaction, weather, ctx) {
    // In a DM the command itself says schedules belong to a server: nothing to offer, nor to look up.
    if (!interaction.guildId) return interaction.respond([]);
    const focused = interaction.options.getFocused(true);
    if (focused.name !== 'timezone') return placeAutocomplete(interaction, weather, ctx);
    await interaction.respond(
      zoneSuggestions(String(focused.value), interaction.options.getString(PLACE_OPTION))
        .slice(0, 25)
        .map((zone) => ({ name: zone, value: zone })),
    );
  },
  async execute(interaction, weather, ctx) {
    const { guildId, t } = requireManager(interaction);
    const time = parseTimeOfDay(interaction.options.getString('time', true));
    if (!time) throw new UserError(t.badTime);
    const typedZone = interaction.options.getString('timezone')?.trim() ?? '';
    let timezone: string | undefined;
    if (typedZone !== '') {
      timezone = canonicalTimeZone(typedZone);
      if (timezone === undefined) {
        const meant = zonesForAbbreviation(typedZone);
        const shown = md(typedZone, 64);
        throw new UserError(meant.length > 0 ? t.abbreviatedTimeZone(shown, meant) : t.badTimeZone(shown));
      }
    }
    const typedDays = interaction.options.getString('days') ?? '';
    let days: number[];
    try {
      days = parseDays(typedDays);
    } catch (error) {
      throw new UserError(t.badDays(md((error as Error).message, 200), md(typedDays, 60)));
    }
    const picked = interaction.options.getChannel('channel');
    const channelId = picked?.id ?? interaction.channelId;
    if (!channelId || !interaction.inGuild()) throw new UserError(t.pickTextChannel);
    // The type of the channel the command came from is in the interaction (its partial channel),
    // which discord.js keeps only when it has the guild: without it, nothing is checked, and the
    // reply says so.
    const type = picked?.type ?? interaction.channel?.type;
    if (type !== undefined && !POSTABLE.includes(type)) throw new UserError(t.notTextChannel);
    const { granted, timedOutUntil } =
      type === undefined ? UNKNOWN_STANDING : await botStanding(interaction, channelId, ctx.now());
    if (granted) {
      const missing = NEEDED.filter(([, flag]) => !granted.has(flag)).map(
        ([name]) => t.permissionNames[name],
      );
      if (missing.length > 0) throw new UserError(t.missingPermissions(channelId, missing));
    }

    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request, { ephemeral: true });
    // Left out, the zone is the place's own (the reply shows which); at sea there is none to take.
    timezone ??= zoneOfPlace(place);
    if (timezone === undefined) throw new UserError(t.noZoneAtPlace(md(place.label, 100)));
    const schedule = await weather.schedules.store
      .add({
        guildId,
        channelId,
        place,
        time,
        timezone,
        days,
        kind: (interaction.options.getString('kind') ?? 'today') as ScheduleKind,
        units: (interaction.options.getString('units') ??
          defaultUnitsFor(interaction.locale)) as Schedule['units'],
        lang: request.lang,
        createdBy: interaction.user.id,
        createdAt: ctx.now(),
      })
      .catch((error: unknown) => {
        // In the member's language, where the store words it in English.
        throw error instanceof ScheduleLimitError ? new UserError(t.tooManySchedules(error.count)) : error;
      });
    await weather.schedules.scheduler.changed(schedule);
    const notes = [
      ...(granted ? [] : [t.permissionsUnchecked(channelId)]),
      ...(timedOutUntil === undefined ? [] : [t.timedOut(Math.floor(timedOutUntil / 1000))]),
    ];
    await interaction.editReply({
      ...(notes.length > 0 ? { content: notes.join('\n') } : {}),
      embeds: [renderScheduleSaved(schedule, new Date(ctx.now()), t)],
    });
  },
} satisfies Subcommand<WeatherServices>;

/** The IANA zone at a place, spelled as the zone list offers it; none at sea. */
function zoneOfPlace(place: { lat: number; lon: number }): string | undefined {
  const zone = zoneAt(place);
  return zone === undefined ? undefined : canonicalTimeZone(zone);
}

/**
 * Zones for what the member is typing in the `timezone` option: the zone of the place already
 * chosen (when the place option holds a suggestion, and it matches), the zones an abbreviation
 * stands for (`EST`: America/New_York…), then every zone whose name contains what was typed.
 */
function zoneSuggestions(typed: string, placeValue: string | null): string[] {
  const chosen = placeValue === null ? undefined : decodePlace(placeValue);
  const wanted = typed.trim().toLowerCase().replace(/\s+/g, '_');
  const here = chosen === undefined ? undefined : zoneOfPlace(chosen);
  const first = here !== undefined && here.toLowerCase().includes(wanted) ? [here] : [];
  return [...new Set([...first, ...zonesForAbbreviation(typed), ...timeZonesMatching(typed)])];
}

interface Standing {
  /** The bot's permissions in the channel, or undefined when they cannot be worked out. */
  granted: Readonly<PermissionsBitField> | undefined;
  /** When the bot's timeout on this server ends (milliseconds), if it is timed out now. */
  timedOutUntil: number | undefined;
}

const UNKNOWN_STANDING: Standing = { granted: undefined, timedOutUntil: undefined };

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
async function botStanding(
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
