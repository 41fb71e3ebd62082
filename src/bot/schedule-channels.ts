import { Events, type Client } from 'discord.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../services/schedules/runner.js';
import type { ScheduleStore } from '../services/schedules/store.js';
import type { BotPauseCode, Schedule } from '../services/schedules/types.js';
import { scheduleMessages } from './i18n/schedule-messages.js';

/** A pause the bot makes itself: stored in English, with the code the list shows in the reader's language. */
const pausedFor = (code: BotPauseCode) =>
  ({ reason: scheduleMessages('en').pauseReasons[code], code }) as const;

/**
 * Pauses a server's schedules when Discord says they can no longer post, so `/weather schedule
 * list` says why at once, rather than showing a next post until that post is refused (each refusal
 * also counting toward Discord's limit on invalid requests):
 * - for a channel, when it was deleted (CHANNEL_DELETE, sent with the Guilds intent to the shard
 *   that holds the server); a post already refused with 10003 pauses it the same way
 *   (scheduled-post);
 * - for the whole server, when the bot was removed from it (GUILD_DELETE without `unavailable`,
 *   which discord.js tells as `guildDelete`; a server that is only unavailable for a while is
 *   `guildUnavailable`, and pauses nothing). Added again, the schedules are resumed with
 *   `/weather schedule resume`, which checks the bot can post.
 * Paused, not removed: a schedule keeps its place, time and kind for whoever moves or resumes it.
 */
export function pauseUnpostableSchedules(
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
      pauseFor(guildId, 'channel-deleted', (schedule) => schedule.channelId === channelId).catch(
        (error: unknown) =>
          logger.error(
            { err: error, guildId, channelId },
            'could not pause the scheduled posts of a deleted channel: each is paused when its next post is refused',
          ),
      ),
    );
  });
  client.on(Events.GuildDelete, (guild) => {
    const guildId = guild.id;
    run(() =>
      pauseFor(guildId, 'bot-removed', () => true).catch((error: unknown) =>
        logger.error(
          { err: error, guildId },
          'could not pause the scheduled posts of a server the bot was removed from: each is paused when its next post is refused',
        ),
      ),
    );
  });

  async function pauseFor(
    guildId: string,
    code: BotPauseCode,
    affects: (schedule: Schedule) => boolean,
  ): Promise<void> {
    const affected = (await schedules.store.list(guildId)).filter(
      (schedule) => affects(schedule) && !schedule.paused,
    );
    for (const schedule of affected) {
      // A pause made meanwhile (a member's) is kept: only a schedule still running is paused here.
      let pausedHere = false;
      const changed = await schedules.store.change(guildId, schedule.id, (current) => {
        if (current.paused) return current;
        pausedHere = true;
        return { ...current, paused: { ...pausedFor(code), at: now(), byUser: false } };
      });
      if (!changed || !pausedHere) continue;
      await schedules.scheduler.changed(changed);
      logger.warn(
        { scheduleId: schedule.id, guildId, channelId: schedule.channelId },
        code === 'bot-removed'
          ? 'schedule paused: the bot was removed from its server'
          : 'schedule paused: its channel was deleted',
      );
    }
  }
}
