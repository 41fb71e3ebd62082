/**
 * A member's link that is being completed (the callback trading its code for tokens) when the bot
 * is told to stop: the callback server takes no new connections from then on, and the callback in
 * progress gets the stop's drain time to finish and store the link, not a few seconds.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginLink, visit } from '../../emulators/music/walk.js';
import { linkButtonUrl, startBotWorld, type BotWorld } from '../helpers/bot.js';

describe('stopping the bot while a member links their music account', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ music: true });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('lets the callback in progress finish and keep the link', async () => {
    const music = world.music!;
    const prompt = await world.slash('music', { subcommand: 'link' }).reply();
    const start = await beginLink(linkButtonUrl(prompt));
    const back = await music.approve(start.location!, music.fixtures!.users.premium);
    // The music service takes 6 s to answer the code exchange.
    music.stallNext('/api/token', 6_000);
    const page = visit(back.toString(), start.cookie);
    await delay(1_500);
    const stopped = world.app.stop();
    const answer = await page;
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('Linked as');
    await stopped;

    await world.restart();
    const status = await world.slash('music', { subcommand: 'status' }).reply();
    expect(status.embeds[0]?.title).toBe('Your music account');
    const fields = Object.fromEntries((status.embeds[0]?.fields ?? []).map((f) => [f.name, f.value]));
    expect(fields['Linked as']).toContain(music.fixtures!.users.premium);
  }, 60_000);
});
