import { featureOffError } from '../../bot/errors.js';
import { renderScheduleListMessage, scheduleListButton } from '../../bot/render/schedules.js';
import type { ButtonHandler } from '../../bot/types.js';
import { requireManager } from './schedule-shared.js';

/**
 * Previous and Next under `/weather schedule list`. The list is shown to its reader alone, but a
 * custom id can be sent by anyone: Manage Server is checked again, and the page is read afresh.
 */
const scheduleListPage: ButtonHandler = {
  prefix: scheduleListButton.prefix,
  requires: 'weather',
  async handle(interaction, ctx, args) {
    const weather = ctx.weather;
    if (weather === undefined) throw featureOffError('weather', interaction.locale);
    const { page } = scheduleListButton.decode(args);
    const { guildId, t } = requireManager(interaction);
    await interaction.deferUpdate();
    const schedules = await weather.schedules.store.list(guildId);
    const limit = ctx.scheduleLimit ?? schedules.length;
    const unposted = await weather.schedules.unposted(schedules);
    await interaction.editReply(
      renderScheduleListMessage(schedules, limit, new Date(ctx.now()), t, page, unposted),
    );
  },
};

/** Buttons of the weather replies, by custom-id prefix. */
export const weatherButtons: readonly ButtonHandler[] = [scheduleListPage];
