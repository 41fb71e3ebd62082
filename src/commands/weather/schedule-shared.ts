import type { SlashCommandStringOption } from '@discordjs/builders';
import {
  PermissionFlagsBits,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { ScheduleServices, WeatherServices } from '../../bot/context.js';
import { UserError } from '../../bot/errors.js';
import { langOf, localize } from '../../bot/i18n/index.js';
import { scheduleMessages, type ScheduleMessages } from '../../bot/i18n/schedule-messages.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import { md } from '../../bot/render/music-text.js';
import { scheduleDays } from '../../bot/render/schedules.js';
import { fit } from '../../bot/render/weather.js';

export const SCHEDULE_GROUP = 'schedule';

/**
 * Managing schedules needs Manage Server. Discord cannot set that on one subcommand group, so it is
 * checked here, and again on the list's buttons (anyone can send a custom id).
 */
export function requireManager(interaction: ChatInputCommandInteraction | ButtonInteraction): {
  guildId: string;
  t: ScheduleMessages;
} {
  const t = scheduleMessagesFor(interaction);
  if (!interaction.inGuild()) throw new UserError(t.notInServer);
  if (!isManager(interaction)) throw new UserError(t.needsManager);
  return { guildId: interaction.guildId, t };
}

function isManager(
  interaction: ChatInputCommandInteraction | ButtonInteraction | AutocompleteInteraction,
): boolean {
  return interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false;
}

export function scheduleMessagesFor(interaction: { locale: string }): ScheduleMessages {
  return scheduleMessages(langOf(interaction.locale));
}

export function scheduleOf(services: WeatherServices): ScheduleServices {
  return services.schedules;
}

export function idOption(option: SlashCommandStringOption) {
  return localize(option, SCHEDULE_TEXT.options.id).setRequired(true).setAutocomplete(true);
}

/** Autocomplete of the server's schedules by id, place and time, for those who may manage them. */
export async function scheduleIdAutocomplete(
  interaction: AutocompleteInteraction,
  services: WeatherServices,
) {
  if (!interaction.guildId || !isManager(interaction)) return interaction.respond([]);
  const t = scheduleMessagesFor(interaction);
  const typed = String(interaction.options.getFocused()).toLowerCase();
  const schedules = await services.schedules.store.list(interaction.guildId);
  await interaction.respond(
    schedules
      .map((s) => ({
        name: fit(
          `${s.id} · ${s.place.label} · ${s.time} ${s.timezone} · ${scheduleDays(s.days, t)}${s.paused ? ` · ${t.pausedMark}` : ''}`,
          100,
        ),
        value: s.id,
      }))
      .filter((choice) => choice.name.toLowerCase().includes(typed))
      .slice(0, 25),
  );
}

export async function findSchedule(
  services: WeatherServices,
  guildId: string,
  id: string,
  t: ScheduleMessages,
) {
  // As the suggestions match it: whatever the case, and the spaces around a pasted id.
  const wanted = id.trim().toLowerCase();
  const schedule = (await services.schedules.store.list(guildId)).find((s) => s.id.toLowerCase() === wanted);
  if (!schedule) throw new UserError(t.noSuchSchedule(md(id, 20)));
  return schedule;
}
