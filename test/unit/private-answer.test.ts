/**
 * What takes a public "thinking…" message's place when Discord will not delete it: a text answer
 * (an error message), but never an answer with embeds or buttons, such as a link prompt carrying the
 * member's own sign-in address. The end-to-end paths are in test/e2e/private-answers.test.ts; no
 * command there answers a link prompt after a public defer without a dead link behind it.
 */
import { DiscordAPIError, type RepliableInteraction } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { answerPrivately, NOT_PRIVATE_TEXT } from '../../src/bot/private-answer.js';

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
            { type: 2, style: 5, label: 'Link', url: 'https://bot.example/link/start?state=s3cr3t' },
          ],
        },
      ],
    };
    await answerPrivately(interaction, prompt);
    expect(calls.map((call) => call.method)).toEqual(['deleteReply', 'editReply']);
    expect(calls[1]?.payload).toEqual({ content: NOT_PRIVATE_TEXT, embeds: [], components: [], files: [] });
  });
});
