/**
 * A scheduled post that Discord answers without its embeds: taken back and the schedule paused when
 * the bot cannot embed links there (covered in weather-schedules.test.ts), but kept, and the owner
 * told, when the bot's permissions there say it may: the answer then says nothing about the
 * permission, and deleting every post would silence the channel for nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePlace } from '../../src/domain/weather/places.js';
import { startReliabilityWorld, type ReliabilityWorld } from '../helpers/reliability-world.js';

const BERLIN = encodePlace({ lat: 52.52, lon: 13.405, label: 'Berlin, DE' });

describe('a scheduled post answered without its embeds', () => {
  let world: ReliabilityWorld;
  beforeAll(async () => {
    world = await startReliabilityWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  const schedule = (subcommand: string, options: Record<string, string>) =>
    world.slash('weather', { subcommandGroup: 'schedule', subcommand, options }).reply();

  it('is kept, and the schedule goes on, where the bot may embed links', async () => {
    const saved = await schedule('add', { place: BERLIN, time: '07:00', timezone: 'UTC', kind: 'current' });
    expect(saved.embeds[0]?.title).toBe('Scheduled weather post saved');
    const [added] = (await world.app.storage.ns('schedules').get(`guild:${world.guildId}`)) as {
      id: string;
    }[];
    world.proxies.discord.fail({
      match: /^POST .*\/channels\/\d+\/messages$/,
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: '1500000000000000001',
        channel_id: world.channelId,
        type: 0,
        content: '',
        embeds: [],
        attachments: [],
      }),
    });
    const reply = await schedule('test', { id: added!.id });
    expect(reply.content).toBe(`Posted it in <#${world.channelId}>.`);
    expect(world.proxies.discord.answered.filter((line) => /^\d+ DELETE .*\/messages\//.test(line))).toEqual(
      [],
    );
    expect(world.logs.join('\n')).toContain('without its embeds, though the bot may embed links');
    const list = await schedule('list', {});
    expect(list.embeds[0]?.description).not.toContain('paused');
  });
});
