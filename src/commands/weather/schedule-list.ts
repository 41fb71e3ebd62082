import type { WeatherServices } from '../../bot/context.js';
import { localize } from '../../bot/i18n/index.js';
import { SCHEDULE_TEXT } from '../../bot/i18n/schedules.js';
import { renderScheduleListMessage } from '../../bot/render/schedules.js';
import { answerPrivatelySoon } from '../../bot/private-answer.js';
import type { Subcommand } from '../../bot/subcommands.js';
import { requireManager, SCHEDULE_GROUP } from './schedule-shared.js';

export default {
  group: SCHEDULE_GROUP,
  name: 'list',
  build: (sub) => localize(sub, SCHEDULE_TEXT.subcommands.list),
  async execute(interaction, weather, ctx) {
    const { guildId, t } = requireManager(interaction);
    await answerPrivatelySoon(interaction, async () => {
      const schedules = await weather.schedules.store.list(guildId);
      const limit = ctx.scheduleLimit ?? schedules.length;
      const unposted = await weather.schedules.unposted(schedules);
      return renderScheduleListMessage(schedules, limit, new Date(ctx.now()), t, 0, unposted);
    });
  },
} satisfies Subcommand<WeatherServices>;
