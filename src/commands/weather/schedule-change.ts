/** `/weather schedule remove|pause|resume <id>`: one file, three verbs that differ only in the change. */
import { MessageFlags } from 'discord.js';
import type { WeatherServices } from '../../bot/context.js';
import { UserError } from '../../bot/errors.js';
import { renderScheduleSaved } from '../../bot/render/schedules.js';
import { langOf, localize } from '../../bot/i18n/index.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import { weatherMessages } from '../../bot/i18n/weather.js';
import type { Subcommand } from '../../bot/subcommands.js';
import type { Schedule } from '../../services/schedules/types.js';
import {
  findSchedule,
  idOption,
  requireManager,
  SCHEDULE_GROUP,
  scheduleIdAutocomplete,
} from './schedule-shared.js';
import { requireBotInServer, requirePostable } from './schedule-standing.js';

type Verb = 'remove' | 'pause' | 'resume';

function changeSchedule(
  verb: Verb,
  services: WeatherServices,
  schedule: Schedule,
  userTag: string,
  now: number,
) {
  const { store } = services.schedules;
  switch (verb) {
    case 'remove':
      return store.remove(schedule.guildId, schedule.id);
    case 'pause':
      return store.pause(
        schedule.guildId,
        schedule.id,
        { reason: `paused by ${userTag}`, code: 'member', by: userTag },
        true,
        now,
      );
    case 'resume':
      return store.resume(schedule.guildId, schedule.id, now);
  }
}

function scheduleVerb(verb: Verb): Subcommand<WeatherServices> {
  return {
    group: SCHEDULE_GROUP,
    name: verb,
    build: (sub) => localize(sub, SCHEDULE_TEXT.subcommands[verb]).addStringOption(idOption),
    autocomplete: (interaction, weather) => scheduleIdAutocomplete(interaction, weather),
    async execute(interaction, weather, ctx) {
      const { guildId, t } = requireManager(interaction);
      if (verb === 'resume') requireBotInServer(interaction, t);
      // Storage locks and (with SCHEDULER=queue) Redis come next: acknowledge first, privately.
      await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      const schedule = await findSchedule(weather, guildId, interaction.options.getString('id', true), t);
      const said = weatherMessages(langOf(interaction.locale));
      if (verb === 'pause' && schedule.paused) throw new UserError(said.scheduleAlreadyPaused(schedule.id));
      if (verb === 'resume' && !schedule.paused) throw new UserError(said.scheduleNotPaused(schedule.id));
      // Resumed into a channel it cannot post in, it would only be paused again at its next post.
      if (verb === 'resume')
        await requirePostable(interaction, schedule.channelId, schedule.kind, t, ctx.now());
      const changed = await changeSchedule(verb, weather, schedule, interaction.user.username, ctx.now());
      // Removed meanwhile by someone else: say so, rather than show it as paused or resumed.
      if (!changed) throw new UserError(t.noSuchSchedule(schedule.id));
      await weather.schedules.scheduler.changed(changed, verb === 'remove');
      await interaction.editReply({
        // A deleted schedule has no next run to show.
        embeds: [renderScheduleSaved(changed, new Date(ctx.now()), t, t.titles[verb], verb !== 'remove')],
      });
    },
  };
}

export const scheduleRemove = scheduleVerb('remove');
export const schedulePause = scheduleVerb('pause');
export const scheduleResume = scheduleVerb('resume');
