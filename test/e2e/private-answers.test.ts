/**
 * A problem found after a command was deferred in public is told to the member alone: the public
 * "thinking…" message is deleted and the answer follows ephemerally. When Discord will not delete
 * it, the member still gets the specific answer, in its place, not a generic error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReliabilityWorld, type ReliabilityWorld } from '../helpers/reliability-world.js';

describe('a problem found after a public defer', () => {
  let world: ReliabilityWorld;
  beforeAll(async () => {
    world = await startReliabilityWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('is shown to the member alone, the “thinking…” message deleted', async () => {
    const handle = world.slash('weather', { subcommand: 'now', options: { place: 'Qwxzvbnmqq' } });
    const answer = await handle.waitForFollowUp(10_000);
    expect(answer.content).toContain('No place called “Qwxzvbnmqq” was found.');
    expect((answer.flags ?? 0) & 64).toBe(64);
    expect(handle.original()).toBeUndefined();
  });

  it('takes the “thinking…” message’s place when Discord will not delete it', async () => {
    const servedBefore = world.proxies.discord.served;
    world.proxies.discord.fail({
      match: /^DELETE .*\/messages\/(@|%40)original/,
      status: 500,
      body: '{"message":"500: Internal Server Error","code":0}',
      times: Infinity,
    });
    try {
      const handle = world.slash('weather', { subcommand: 'now', options: { place: 'Qwxzvbnmqq' } });
      const shown = await handle.waitForEdit(1, 15_000);
      expect(shown.content).toContain('No place called “Qwxzvbnmqq” was found.');
      expect(handle.followUps).toHaveLength(0);
      expect(world.proxies.discord.served).toBeGreaterThan(servedBefore);
    } finally {
      world.proxies.discord.clear();
    }
  });

  it('follows up privately when the “thinking…” message is already gone', async () => {
    world.proxies.discord.fail({
      match: /^DELETE .*\/messages\/(@|%40)original/,
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"Unknown Message","code":10008}',
    });
    try {
      const handle = world.slash('weather', { subcommand: 'now', options: { place: 'Qwxzvbnmqq' } });
      const answer = await handle.waitForFollowUp(10_000);
      expect(answer.content).toContain('No place called “Qwxzvbnmqq” was found.');
      expect(world.proxies.discord.answered.filter((line) => line.startsWith('404 DELETE'))).not.toEqual([]);
    } finally {
      world.proxies.discord.clear();
    }
  });
});
