/**
 * A problem found after a command was deferred in public is told to the member alone: the public
 * "thinking…" message becomes a neutral line, the answer follows ephemerally, and the line is
 * deleted. When Discord will not take the follow-up, the member still gets the specific answer, in
 * the line's place, not a generic error.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ANSWERED_PRIVATELY_TEXTS } from '../../src/bot/private-answer.js';
import { startReliabilityWorld, type ReliabilityWorld } from '../helpers/reliability-world.js';

describe('a problem found after a public defer', () => {
  let world: ReliabilityWorld;
  beforeAll(async () => {
    world = await startReliabilityWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('is shown to the member alone, the “thinking…” message made neutral before the answer, then deleted', async () => {
    const handle = world.slash('weather', { subcommand: 'now', options: { place: 'Qwxzvbnmqq' } });
    const answer = await handle.waitForFollowUp(10_000);
    expect(answer.content).toContain('No place called “Qwxzvbnmqq” was found.');
    expect((answer.flags ?? 0) & 64).toBe(64);
    // The "thinking…" message was edited (so the follow-up is a message of its own), never into the answer.
    const edit = await handle.waitForEdit(1, 1_000);
    expect(edit.content).toBe(ANSWERED_PRIVATELY_TEXTS.en);
    await vi.waitFor(() => expect(handle.original()).toBeUndefined());
  });

  it('takes the neutral line’s place when Discord will not take the follow-up', async () => {
    const servedBefore = world.proxies.discord.served;
    world.proxies.discord.fail({
      match: /^POST [^ ]*\/webhooks\/\d+\/[^/ ]+$/,
      status: 500,
      body: '{"message":"500: Internal Server Error","code":0}',
      times: Infinity,
    });
    try {
      const handle = world.slash('weather', { subcommand: 'now', options: { place: 'Qwxzvbnmqq' } });
      const shown = await handle.waitForEdit(2, 15_000);
      expect(shown.content).toContain('No place called “Qwxzvbnmqq” was found.');
      expect(handle.followUps).toHaveLength(0);
      expect(handle.original()?.content).toContain('No place called “Qwxzvbnmqq” was found.');
      expect(world.proxies.discord.served).toBeGreaterThan(servedBefore);
    } finally {
      world.proxies.discord.clear();
    }
  });

  it('follows up privately when the “thinking…” message is already gone', async () => {
    world.proxies.discord.fail({
      match: /^PATCH .*\/messages\/(@|%40)original/,
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"Unknown Message","code":10008}',
    });
    try {
      const handle = world.slash('weather', { subcommand: 'now', options: { place: 'Qwxzvbnmqq' } });
      const answer = await handle.waitForFollowUp(10_000);
      expect(answer.content).toContain('No place called “Qwxzvbnmqq” was found.');
      expect(world.proxies.discord.answered.filter((line) => line.startsWith('404 PATCH'))).not.toEqual([]);
    } finally {
      world.proxies.discord.clear();
    }
  });
});
