/**
 * What takes a public "thinking…" message's place when Discord will not delete it: a text answer
 * (an error message), but never an answer with embeds or buttons, such as a link prompt carrying the
 * member's own sign-in address. The end-to-end paths are in test/e2e/private-answers.test.ts; no
 * command there answers a link prompt after a public defer without a dead link behind it.
 */
import { DiscordAPIError, MessageFlags, type RepliableInteraction } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ACKNOWLEDGE_AFTER_MS,
  answerPrivately,
  answerPrivatelySoon,
  NOT_PRIVATE_TEXT,
} from '../../src/bot/private-answer.js';

/** A command deferred in public whose "thinking…" message Discord refuses to delete. */
function deferredInPublic() {
  const calls: { method: string; payload?: unknown }[] = [];
  const refused = new DiscordAPIError(
    { message: '500: Internal Server Error', code: 0 },
    0,
    500,
    'DELETE',
    'x',
    {
      body: undefined,
      files: undefined,
    },
  );
  const interaction = {
    deferred: true,
    replied: false,
    ephemeral: false,
    isMessageComponent: () => false,
    deleteReply: () => {
      calls.push({ method: 'deleteReply' });
      return Promise.reject(refused);
    },
    editReply: (payload: unknown) => {
      calls.push({ method: 'editReply', payload });
      return Promise.resolve();
    },
    followUp: (payload: unknown) => {
      calls.push({ method: 'followUp', payload });
      return Promise.resolve();
    },
  } as unknown as RepliableInteraction;
  return { interaction, calls };
}

describe('a private answer whose public “thinking…” message cannot be deleted', () => {
  it('shows a text answer in its place', async () => {
    const { interaction, calls } = deferredInPublic();
    await answerPrivately(interaction, { content: 'No place called “x” was found.' });
    expect(calls.map((call) => call.method)).toEqual(['deleteReply', 'editReply']);
    expect(calls[1]?.payload).toMatchObject({ content: 'No place called “x” was found.', components: [] });
  });

  it('never shows a prompt with a button there, only a neutral line', async () => {
    const { interaction, calls } = deferredInPublic();
    const prompt = {
      content: 'This needs your music account.',
      embeds: [{ title: 'Link your music account' }],
      components: [
        {
          type: 1,
          components: [
            { type: 2, style: 5, label: 'Link', url: 'https://bot.example/link/start?ticket=t1ck3t' },
          ],
        },
      ],
    };
    await answerPrivately(interaction, prompt);
    expect(calls.map((call) => call.method)).toEqual(['deleteReply', 'editReply']);
    expect(calls[1]?.payload).toEqual({ content: NOT_PRIVATE_TEXT, embeds: [], components: [], files: [] });
  });
});

/** An interaction not yet answered, whose calls are recorded with when they were made. */
function unanswered(now: () => number) {
  const calls: { method: string; at: number; payload?: unknown }[] = [];
  const interaction = {
    deferred: false,
    replied: false,
    ephemeral: null as boolean | null,
    isMessageComponent: () => false,
    deferReply(payload: unknown) {
      calls.push({ method: 'deferReply', at: now(), payload });
      this.deferred = true;
      this.ephemeral = true;
      return Promise.resolve();
    },
    reply(payload: unknown) {
      calls.push({ method: 'reply', at: now(), payload });
      this.replied = true;
      return Promise.resolve();
    },
    editReply(payload: unknown) {
      calls.push({ method: 'editReply', at: now(), payload });
      return Promise.resolve();
    },
  };
  return { interaction: interaction as unknown as RepliableInteraction, calls };
}

describe('a private answer whose work may stall', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers at once when the work is quick', async () => {
    const { interaction, calls } = unanswered(Date.now);
    await answerPrivatelySoon(interaction, () => Promise.resolve({ content: 'Saved.' }));
    expect(calls.map((call) => call.method)).toEqual(['reply']);
    expect(calls[0]?.payload).toMatchObject({ content: 'Saved.', flags: MessageFlags.Ephemeral });
  });

  it('acknowledges privately well inside three seconds when the work stalls, then answers in its place', async () => {
    const started = Date.now();
    const { interaction, calls } = unanswered(Date.now);
    const answered = answerPrivatelySoon(
      interaction,
      () => new Promise((resolve) => setTimeout(() => resolve({ content: 'Saved.' }), 5_000)),
    );
    await vi.advanceTimersByTimeAsync(5_000);
    await answered;
    expect(calls.map((call) => call.method)).toEqual(['deferReply', 'editReply']);
    expect(calls[0]!.at - started).toBe(ACKNOWLEDGE_AFTER_MS);
    expect(ACKNOWLEDGE_AFTER_MS).toBeLessThanOrEqual(2_000);
    expect(calls[0]?.payload).toEqual({ flags: MessageFlags.Ephemeral });
    expect(calls[1]?.payload).toMatchObject({ content: 'Saved.' });
  });

  it('lets a failure through only once the acknowledgement is settled', async () => {
    const { interaction, calls } = unanswered(Date.now);
    const failed = answerPrivatelySoon(
      interaction,
      () => new Promise((_, reject) => setTimeout(() => reject(new Error('storage is down')), 2_000)),
    ).catch((error: unknown) => ({ error, deferred: interaction.deferred }));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await failed).toMatchObject({ deferred: true });
    expect(calls.map((call) => call.method)).toEqual(['deferReply']);
  });
});
