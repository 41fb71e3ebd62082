import { ChannelType } from 'discord.js';
import type { WeatherServices } from '../../bot/context.js';
import { UserError } from '../../bot/errors.js';
import { localize, localizedChoice } from '../../bot/i18n/index.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import { md } from '../../bot/render/music-text.js';
import { renderScheduleSaved } from '../../bot/render/schedules.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { decodePlace } from '../../domain/weather/places.js';
import {
  canonicalTimeZone,
  timeZonesMatching,
  zoneAt,
  zonesForAbbreviation,
} from '../../domain/weather/zones.js';
import { ambiguousHour, parseDays, parseTimeOfDay } from '../../services/schedules/input.js';
import { DuplicateScheduleError, ScheduleLimitError } from '../../services/schedules/store.js';
import { SCHEDULE_KINDS, type Schedule, type ScheduleKind } from '../../services/schedules/types.js';
import {
  botStanding,
  missingPermissions,
  requireBotInServer,
  UNKNOWN_STANDING,
} from './schedule-standing.js';
import { deferWithPlace, PLACE_OPTION, placeAutocomplete, placeOption, weatherRequest } from './shared.js';
import { requireManager, SCHEDULE_GROUP } from './schedule-shared.js';

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
    requireBotInServer(interaction, t);
    const typedTime = interaction.options.getString('time', true);
    const time = parseTimeOfDay(typedTime);
    if (!time) {
      const hour = ambiguousHour(typedTime);
      throw new UserError(hour === undefined ? t.badTime : t.ambiguousTime(hour));
    }
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
    const kind = (interaction.options.getString('kind') ?? 'today') as ScheduleKind;
    const picked = interaction.options.getChannel('channel');
    const channelId = picked?.id ?? interaction.channelId;
    if (!channelId || !interaction.inGuild()) throw new UserError(t.pickTextChannel);
    // The type of the channel the command came from is in the interaction (its partial channel),
    // which discord.js gives only for a channel in its cache: without it, nothing is checked, and
    // the reply says so. (The guild is cached: see `requireBotInServer`.)
    const type = picked?.type ?? interaction.channel?.type;
    if (type !== undefined && !POSTABLE.includes(type)) throw new UserError(t.notTextChannel);
    const { granted, timedOutUntil } =
      type === undefined ? UNKNOWN_STANDING : await botStanding(interaction, channelId, ctx.now());
    if (granted) {
      const missing = missingPermissions(granted, kind, t);
      if (missing.length > 0) throw new UserError(t.missingPermissions(channelId, missing));
    }

    const request = await weatherRequest(interaction, weather, ctx);
    const place = await deferWithPlace(interaction, weather, request, { ephemeral: true, required: true });
    // Left out, the zone is the place's own (the reply shows which); at sea there is none to take.
    timezone ??= zoneOfPlace(place);
    if (timezone === undefined) throw new UserError(t.noZoneAtPlace(md(place.label, 100)));
    const schedule = await weather.schedules.store
      .add(
        {
          guildId,
          channelId,
          place,
          time,
          timezone,
          days,
          kind,
          // Left out: the units the member set with /weather units, else those of their language.
          units: (interaction.options.getString('units') ?? request.render.units) as Schedule['units'],
          lang: request.lang,
          createdBy: interaction.user.id,
          createdAt: ctx.now(),
        },
        // The same command sent twice (its first reply slow to come) makes one schedule.
        { unique: true },
      )
      .catch((error: unknown) => {
        // In the member's language, where the store words it in English.
        if (error instanceof ScheduleLimitError) throw new UserError(t.tooManySchedules(error.count));
        if (error instanceof DuplicateScheduleError) {
          const { id, paused } = error.existing;
          throw new UserError(t.duplicateSchedule(id, channelId, paused !== undefined));
        }
        throw error;
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
