import { Events, type Client } from 'discord.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../services/schedules/runner.js';
import type { ScheduleStore } from '../services/schedules/store.js';
import { scheduleMessages } from './i18n/schedule-messages.js';

/** Stored in English, with the code the schedule list shows in the reader's language. */
const CHANNEL_DELETED = {
  reason: scheduleMessages('en').pauseReasons['channel-deleted'],
  code: 'channel-deleted',
} as const;

/**
 * Pauses a server's schedules for a channel when Discord says the channel was deleted
 * (CHANNEL_DELETE, sent with the Guilds intent to the shard that holds the server), so
 * `/weather schedule list` says why at once, rather than showing a next post until that post is
 * refused. Paused, not removed: the schedule keeps its place, time and kind for whoever moves it
 * to another channel. A post already refused with 10003 pauses it the same way (scheduled-post).
 */
export function pauseSchedulesOfDeletedChannels(
  client: Client,
  schedules: { store: ScheduleStore; scheduler: Scheduler },
  now: () => number,
  logger: Logger,
): void {
  client.on(Events.ChannelDelete, (channel) => {
    if (channel.isDMBased()) return;
    const { guildId, id: channelId } = channel;
    void pauseFor(guildId, channelId).catch((error: unknown) =>
      logger.error(
        { err: error, guildId, channelId },
        'could not pause the scheduled posts of a deleted channel: each is paused when its next post is refused',
      ),
    );
  });

  async function pauseFor(guildId: string, channelId: string): Promise<void> {
    const affected = (await schedules.store.list(guildId)).filter(
      (schedule) => schedule.channelId === channelId && !schedule.paused,
    );
    for (const schedule of affected) {
      const paused = await schedules.store.pause(guildId, schedule.id, CHANNEL_DELETED, false, now());
      if (!paused) continue;
      await schedules.scheduler.changed(paused);
      logger.warn(
        { scheduleId: schedule.id, guildId, channelId },
        'schedule paused: its channel was deleted',
      );
    }
  }
}
