import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonId, startBotWorld, type BotWorld } from '../helpers/bot.js';

describe('a player panel older than its interaction token', () => {
  let world: BotWorld;
  const clock = { offsetMs: 0 };
  beforeAll(async () => {
    world = await startBotWorld({ music: true, discord: { now: () => Date.now() + clock.offsetMs } });
    await world.linkMusic(world.alice.id, world.music!.fixtures!.users.premium);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('still pauses after the command’s 15-minute token has expired', async () => {
    const premium = world.music!.fixtures!.users.premium;
    world.music!.setPlayer(premium, { isPlaying: true, activeDeviceId: 'alice-laptop' });
    const panel = await world.slash('music', { subcommand: 'player' }).reply();
    clock.offsetMs = 16 * 60_000;
    const press = world.discord.clickButton({
      userId: world.alice.id,
      message: panel,
      customId: buttonId(panel, 'Pause'),
      guildId: world.guildId,
      channelId: world.channelId,
    });
    const updated = await press.waitForEdit();
    expect(updated.id).toBe(panel.id);
    expect(press.refusals).toEqual([]);
    expect(world.music!.player(premium)?.isPlaying).toBe(false);
  });
});
