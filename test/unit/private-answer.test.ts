/**
 * A private answer to a command deferred in public: its "thinking…" message is edited into a neutral
 * line before the answer follows ephemerally (Discord makes a follow-up sent straight after a
 * deferral take its place and visibility, and refused one sent after the deferral was deleted), and
 * the line is deleted after. What takes the line's place when the follow-up fails: a text answer (an
 * error message), but never an answer with embeds or buttons, such as a link prompt carrying the
 * member's own sign-in address. The end-to-end paths are in test/e2e/private-answers.test.ts; no
 * command there answers a link prompt after a public defer without a dead link behind it.
 */
import { DiscordAPIError, MessageFlags, type RepliableInteraction } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ACKNOWLEDGE_AFTER_MS,
  ANSWERED_PRIVATELY_TEXTS,
  answerPrivately,
  answerPrivatelySoon,
  NOT_PRIVATE_TEXTS,
} from '../../src/bot/private-answer.js';

const discordError = (status: number, code: number, message: string) =>
  new DiscordAPIError({ message, code }, code, status, 'PATCH', 'x', { body: undefined, files: undefined });
const serverError = () => discordError(500, 0, '500: Internal Server Error');
const unknownMessage = () => discordError(404, 10008, 'Unknown Message');

/** A command deferred in public; `refuse` says which calls Discord refuses, and with what. */
function deferredInPublic(
  refuse: Partial<Record<'editReply' | 'followUp' | 'deleteReply', () => Error>> = {},
  locale = 'en-US',
) {
  const calls: { method: string; payload?: unknown }[] = [];
  const call = (method: 'editReply' | 'followUp' | 'deleteReply', payload?: unknown) => {
    calls.push(payload === undefined ? { method } : { method, payload });
    const refusal = refuse[method];
    // Only the first edit is refused: the one that makes the "thinking…" message a neutral line.
    if (method === 'editReply' && calls.filter((c) => c.method === 'editReply').length > 1)
      return Promise.resolve();
    return refusal ? Promise.reject(refusal()) : Promise.resolve();
  };
  const interaction = {
    deferred: true,
    replied: false,
    ephemeral: false,
    locale,
    isMessageComponent: () => false,
    deleteReply: () => call('deleteReply'),
    editReply: (payload: unknown) => call('editReply', payload),
    followUp: (payload: unknown) => call('followUp', payload),
  } as unknown as RepliableInteraction;
  return { interaction, calls };
}

const neutralLine = { content: ANSWERED_PRIVATELY_TEXTS.en, embeds: [], components: [], files: [] };
const prompt = {
  content: 'This needs your music account.',
  embeds: [{ title: 'Link your music account' }],
  components: [
    {
      type: 1,
      components: [{ type: 2, style: 5, label: 'Link', url: 'https://bot.example/link/start?ticket=t1ck3t' }],
    },
  ],
};

describe('a private answer to a command deferred in public', () => {
  it('makes “thinking…” a neutral line, follows up ephemerally, then deletes the line', async () => {
    const { interaction, calls } = deferredInPublic();
    await answerPrivately(interaction, prompt);
    expect(calls).toEqual([
      { method: 'editReply', payload: neutralLine },
      { method: 'followUp', payload: { ...prompt, flags: MessageFlags.Ephemeral } },
      { method: 'deleteReply' },
    ]);
  });

  it('leaves the neutral line when Discord will not delete it, the answer already shown', async () => {
    const { interaction, calls } = deferredInPublic({ deleteReply: serverError });
    await answerPrivately(interaction, { content: 'No place called “x” was found.' });
    expect(calls.map((call) => call.method)).toEqual(['editReply', 'followUp', 'deleteReply']);
    expect(calls[0]?.payload).toEqual(neutralLine);
  });

  it('shows a text answer in the line’s place when the follow-up fails', async () => {
    const { interaction, calls } = deferredInPublic({ followUp: serverError });
    await answerPrivately(interaction, { content: 'No place called “x” was found.' });
    expect(calls.map((call) => call.method)).toEqual(['editReply', 'followUp', 'editReply']);
    expect(calls[2]?.payload).toMatchObject({ content: 'No place called “x” was found.', components: [] });
  });

  it('never shows a prompt with a button there, only a neutral line', async () => {
    const { interaction, calls } = deferredInPublic({ followUp: serverError });
    await answerPrivately(interaction, prompt);
    expect(calls.map((call) => call.method)).toEqual(['editReply', 'followUp', 'editReply']);
    expect(calls[2]?.payload).toEqual({
      content: NOT_PRIVATE_TEXTS.en,
      embeds: [],
      components: [],
      files: [],
    });
  });

  it('says a change was made, not to run it again, when the answer to a change cannot follow', async () => {
    const { interaction, calls } = deferredInPublic({ followUp: serverError });
    const made = 'Added 2 items at position 1. I could not show you the playlist privately here.';
    await answerPrivately(interaction, prompt, made);
    expect(calls[2]?.payload).toEqual({ content: made, embeds: [], components: [], files: [] });
  });

  it('says the neutral line, and the line that stands in for a prompt, in the member’s language', async () => {
    const { interaction, calls } = deferredInPublic({ followUp: serverError }, 'de');
    await answerPrivately(interaction, prompt);
    expect(calls.map((call) => call.payload && (call.payload as { content?: string }).content)).toEqual([
      ANSWERED_PRIVATELY_TEXTS.de,
      prompt.content,
      NOT_PRIVATE_TEXTS.de,
    ]);
  });

  it('follows up nothing when “thinking…” cannot be edited, which the follow-up would replace in public', async () => {
    const { interaction, calls } = deferredInPublic({ editReply: serverError });
    await expect(answerPrivately(interaction, prompt)).rejects.toThrow('Internal Server Error');
    expect(calls.map((call) => call.method)).toEqual(['editReply']);
  });

  it('follows up privately when “thinking…” is gone already', async () => {
    const { interaction, calls } = deferredInPublic({ editReply: unknownMessage });
    await answerPrivately(interaction, { content: 'No place called “x” was found.' });
    expect(calls.map((call) => call.method)).toEqual(['editReply', 'followUp']);
    expect(calls[1]?.payload).toMatchObject({ flags: MessageFlags.Ephemeral });
  });

  it('follows up no prompt with a sign-in link when “thinking…” is gone, as the follow-up might take its public place', async () => {
    const { interaction, calls } = deferredInPublic({ editReply: unknownMessage });
    await answerPrivately(interaction, prompt);
    expect(calls.map((call) => call.method)).toEqual(['editReply', 'followUp']);
    expect(calls[1]?.payload).toEqual({ content: NOT_PRIVATE_TEXTS.en, flags: MessageFlags.Ephemeral });
    expect(JSON.stringify(calls)).not.toContain('t1ck3t');
    // The answer to a change made: that it was made, so that the member does not make it twice.
    const made = deferredInPublic({ editReply: unknownMessage });
    await answerPrivately(made.interaction, prompt, 'Added 3 items.');
    expect(made.calls[1]?.payload).toEqual({ content: 'Added 3 items.', flags: MessageFlags.Ephemeral });
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
