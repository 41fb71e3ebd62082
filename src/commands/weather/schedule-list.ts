import { MessageFlags } from 'discord.js';
import type { WeatherServices } from '../../bot/context.js';
import { renderScheduleList } from '../../bot/render/schedules.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { requireManager, SCHEDULE_GROUP } from './schedule-shared.js';

export default {
  group: SCHEDULE_GROUP,
  name: 'list',
  build: (sub) => sub.setDescription('List the scheduled weather posts of this server, with their next run'),
  async execute(interaction, weather, ctx) {
    const { guildId } = requireManager(interaction);
    const schedules = await weather.schedules.store.list(guildId);
    const limit = ctx.scheduleLimit ?? schedules.length;
    await interaction.reply({
      embeds: [renderScheduleList(schedules, limit, new Date())],
      flags: MessageFlags.Ephemeral,
    });
  },
} satisfies Subcommand<WeatherServices>;
