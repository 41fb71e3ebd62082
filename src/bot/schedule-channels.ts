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
  options: {
    now: () => number;
    logger: Logger;
    /**
     * Runs the work the event calls for, so that a stop waits for it; or does not run it once the
     * bot is stopping (the next post's refusal pauses the schedule all the same).
     */
    run: (work: () => Promise<void>) => void;
  },
): void {
  const { now, logger, run } = options;
  client.on(Events.ChannelDelete, (channel) => {
    if (channel.isDMBased()) return;
    const { guildId, id: channelId } = channel;
    run(() =>
      pauseFor(guildId, channelId).catch((error: unknown) =>
        logger.error(
          { err: error, guildId, channelId },
          'could not pause the scheduled posts of a deleted channel: each is paused when its next post is refused',
        ),
      ),
    );
  });

  async function pauseFor(guildId: string, channelId: string): Promise<void> {
    const affected = (await schedules.store.list(guildId)).filter(
      (schedule) => schedule.channelId === channelId && !schedule.paused,
    );
    for (const schedule of affected) {
      // A pause made meanwhile (a member's) is kept: only a schedule still running is paused here.
      let pausedHere = false;
      const changed = await schedules.store.change(guildId, schedule.id, (current) => {
        if (current.paused) return current;
        pausedHere = true;
        return { ...current, paused: { ...CHANNEL_DELETED, at: now(), byUser: false } };
      });
      if (!changed || !pausedHere) continue;
      await schedules.scheduler.changed(changed);
      logger.warn(
        { scheduleId: schedule.id, guildId, channelId },
        'schedule paused: its channel was deleted',
      );
    }
  }
}
