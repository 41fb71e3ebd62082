import type { SlashCommandStringOption } from '@discordjs/builders';
import {
  PermissionFlagsBits,
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { ScheduleServices, WeatherServices } from '../../bot/context.js';
import { UserError } from '../../bot/errors.js';
import { localize } from '../../bot/i18n/index.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import { fit } from '../../bot/render/weather.js';
import { describeDays } from '../../services/schedules/input.js';

export const SCHEDULE_GROUP = 'schedule';

/** Managing schedules needs Manage Server. Discord cannot set that on one subcommand group, so it is checked here. */
export function requireManager(interaction: ChatInputCommandInteraction): { guildId: string } {
  if (!interaction.inGuild())
    throw new UserError('Scheduled posts belong to a server: use this command in one.');
  if (!interaction.memberPermissions.has(PermissionFlagsBits.ManageGuild)) {
    throw new UserError('Managing scheduled posts needs the Manage Server permission.');
  }
  return { guildId: interaction.guildId };
}

export function scheduleOf(services: WeatherServices): ScheduleServices {
  return services.schedules;
}

export function idOption(option: SlashCommandStringOption) {
  return localize(option, SCHEDULE_TEXT.options.id).setRequired(true).setAutocomplete(true);
}

/** Autocomplete of the server's schedules by id, place and time. */
export async function scheduleIdAutocomplete(
  interaction: AutocompleteInteraction,
  services: WeatherServices,
) {
  if (!interaction.guildId) return interaction.respond([]);
  const typed = String(interaction.options.getFocused()).toLowerCase();
  const schedules = await services.schedules.store.list(interaction.guildId);
  await interaction.respond(
    schedules
      .map((s) => ({
        name: fit(
          `${s.id} · ${s.place.label} · ${s.time} ${s.timezone} · ${describeDays(s.days)}${s.paused ? ' · paused' : ''}`,
          100,
        ),
        value: s.id,
      }))
      .filter((choice) => choice.name.toLowerCase().includes(typed))
      .slice(0, 25),
  );
}

export async function findSchedule(services: WeatherServices, guildId: string, id: string) {
  const schedule = (await services.schedules.store.list(guildId)).find((s) => s.id === id);
  if (!schedule)
    throw new UserError(
      `There is no scheduled post \`${id.slice(0, 20)}\` on this server. See /weather schedule list.`,
    );
  return schedule;
}
