import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatedMessage } from '../../emulators/discord/world.js';
import { buttonId, startBotWorld, type BotWorld } from '../helpers/bot.js';

const EPHEMERAL = 64;

function labels(message: EmulatedMessage): string[] {
  return (message.components ?? []).flatMap((row) =>
    ((row as { components?: { label?: string }[] }).components ?? []).map(
      (component) => component.label ?? '',
    ),
  );
}

describe('the player: devices, the panel, pause and next', () => {
  let world: BotWorld;
  let premium: string;
  let free: string;
  let noActiveDevice: string;
  const carol = { id: '' };

  beforeAll(async () => {
    world = await startBotWorld({ music: true });
    ({ premium, free, noActiveDevice } = world.music!.fixtures!.users);
    await world.linkMusic(world.alice.id, premium);
    await world.linkMusic(world.bob.id, free);
    carol.id = world.discord.createUser({ username: 'carol' }).id;
    await world.linkMusic(carol.id, noActiveDevice);
  });
  afterAll(async () => {
    await world?.close();
  });

  const openPanel = async () => {
    world.music!.setPlayer(premium, { isPlaying: true, activeDeviceId: 'alice-laptop' });
    return world.slash('music', { subcommand: 'player' }).reply();
  };
  const click = (message: EmulatedMessage, label: string, userId = world.alice.id) =>
    world.discord.clickButton({
      userId,
      message,
      customId: buttonId(message, label),
      guildId: world.guildId,
      channelId: world.channelId,
    });

  it('lists the devices with the active one marked and restricted ones not controllable', async () => {
    const reply = await world.slash('music', { subcommand: 'devices' }).reply();
    expect(reply.flags! & EPHEMERAL).toBe(EPHEMERAL);
    const lines = reply.embeds[0]!.description!.split('\n');
    expect(lines.find((line) => line.includes('MacBook'))).toMatch(/▶️.*\*\*active\*\*/);
    expect(lines.find((line) => line.includes('Kitchen speaker'))).toMatch(/🔒.*not controllable/);
    expect(lines.find((line) => line.includes('phone'))).not.toMatch(/active|not controllable/);
  });

  it('opens a public panel with Pause, Next and a choice between the controllable devices', async () => {
    const panel = await openPanel();
    expect(panel.flags ?? 0).toBe(0);
    expect(panel.embeds[0]?.title).toBe('Player');
    expect(panel.embeds[0]?.description).toContain(`<@${world.alice.id}>`);
    expect(labels(panel)).toEqual(['⏸ Pause', '⏭ Next', '↻ Refresh', 'Alice’s MacBook', 'Alice’s phone']);
  });

  it('pauses from the panel and says so on the panel', async () => {
    const panel = await openPanel();
    const press = click(panel, 'Pause');
    const updated = await press.waitForEdit();
    expect(world.music!.player(premium)?.isPlaying).toBe(false);
    expect(updated.embeds[0]?.description).toContain('Paused on Alice’s MacBook.');
    expect(press.callbacks[0]?.type).toBe(6); // deferred update, then an edit through the click's own token
  });

  it('skips to the next track from the panel', async () => {
    const panel = await openPanel();
    const before = world.music!.player(premium)!.trackIndex;
    const updated = await click(panel, 'Next').waitForEdit();
    expect(world.music!.player(premium)!.trackIndex).toBe(before + 1);
    expect(updated.embeds[0]?.description).toContain('Skipped to the next track');
  });

  it('re-reads the devices with Refresh', async () => {
    const panel = await openPanel();
    world.music!.setPlayer(premium, { activeDeviceId: 'alice-phone' });
    const refreshed = await click(panel, 'Refresh').waitForEdit();
    expect(refreshed.embeds[0]?.description).toContain('Buttons act on: Alice’s phone (the active device).');
    world.music!.setPlayer(premium, { activeDeviceId: 'alice-laptop' });
  });

  it('refuses a second member who presses Pause on the first one’s panel, and pauses nothing', async () => {
    const panel = await openPanel();
    world.music!.resetCounters();
    const press = click(panel, 'Pause', world.bob.id);
    const note = await press.reply();
    expect(note.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(note.content).toBe(
      `This is <@${world.alice.id}>’s player panel: only they can use its buttons. Run the command yourself to get your own.`,
    );
    expect(world.music!.player(premium)?.isPlaying).toBe(true);
    expect(world.music!.requestCount({ path: /^\/v1\// })).toBe(0);
    expect(world.discord.message(panel.id)?.embeds).toEqual(panel.embeds);
  });

  it('sends the buttons to another device once it is picked', async () => {
    const panel = await openPanel();
    const picked = await click(panel, 'Alice’s phone').waitForEdit();
    expect(picked.embeds[0]?.description).toContain('Buttons act on: Alice’s phone.');
    // The phone is idle, so pausing there is refused: the member is told where music is playing,
    // with the devices listed.
    const press = click(picked, 'Pause');
    const error = await press.waitForFollowUp();
    expect(error.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(error.content).toBe(
      '“Alice’s phone” is not your active device, and Pause and Next work only on that one. ' +
        'Your active device is “Alice’s MacBook”: pick it, or start playing on “Alice’s phone” first.',
    );
    expect(error.embeds[0]?.description).toContain('Kitchen speaker');
    expect(world.music!.player(premium)?.isPlaying).toBe(true);
  });

  it('after Next fails without an answer, says the skip may have happened rather than to try again', async () => {
    const panel = await openPanel();
    const before = world.music!.player(premium)!.trackIndex;
    world.music!.failNext('/v1/me/player/next', 503);
    const error = await click(panel, 'Next').waitForFollowUp();
    expect(error.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(error.content).toBe(
      'The music service did not confirm the skip, and it may have skipped already: ' +
        'check your player before you press Next again.',
    );
    expect(world.music!.player(premium)!.trackIndex).toBe(before);
  });

  it('keeps a panel working after the bot restarts, without the token of the command that made it', async () => {
    world.music!.setPlayer(premium, { isPlaying: true, activeDeviceId: 'alice-laptop' });
    const command = world.slash('music', { subcommand: 'player' });
    const panel = await command.reply();
    await world.restart();
    const before = world.discord.requests.length;
    const press = click(panel, 'Pause');
    const updated = await press.waitForEdit();
    expect(updated.id).toBe(panel.id);
    expect(world.music!.player(premium)?.isPlaying).toBe(false);
    expect(press.refusals).toEqual([]);
    // Every call went through the click's own interaction, none through the (expiring) command token.
    const since = world.discord.requests.slice(before);
    expect(since.some((request) => request.path.includes(press.token))).toBe(true);
    expect(since.some((request) => request.path.includes(command.token))).toBe(false);
  });

  it('pauses and skips with /music pause and /music next, on a chosen device', async () => {
    world.music!.setPlayer(premium, { isPlaying: true, activeDeviceId: 'alice-laptop' });
    const paused = await world.slash('music', { subcommand: 'pause' }).reply();
    expect(paused.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(paused.content).toBe('⏸ Paused on Alice’s MacBook.');
    expect(world.music!.player(premium)?.isPlaying).toBe(false);

    const skipped = await world
      .slash('music', { subcommand: 'next', options: { device: 'alice-laptop' } })
      .reply();
    expect(skipped.content).toBe('⏭ Skipped to the next track on Alice’s MacBook.');
  });

  it('suggests controllable devices in autocomplete', async () => {
    const choices = await world.discord.autocomplete({
      guildId: world.guildId,
      channelId: world.channelId,
      userId: world.alice.id,
      name: 'music',
      subcommand: 'pause',
      options: { device: 'ph' },
      focused: 'device',
    });
    expect(choices).toEqual([{ name: 'Alice’s phone', value: 'alice-phone' }]);
  });

  it('finds a device by a name typed with a straight apostrophe, in the command and its suggestions', async () => {
    world.music!.setPlayer(premium, { isPlaying: true, activeDeviceId: 'alice-phone' });
    const paused = await world
      .slash('music', { subcommand: 'pause', options: { device: "alice's PHONE" } })
      .reply();
    expect(paused.content).toBe('⏸ Paused on Alice’s phone.');
    expect(world.music!.player(premium)?.isPlaying).toBe(false);
    const choices = await world.discord.autocomplete({
      guildId: world.guildId,
      channelId: world.channelId,
      userId: world.alice.id,
      name: 'music',
      subcommand: 'next',
      options: { device: "alice's p" },
      focused: 'device',
    });
    expect(choices).toEqual([{ name: 'Alice’s phone', value: 'alice-phone' }]);
    world.music!.setPlayer(premium, { isPlaying: true, activeDeviceId: 'alice-laptop' });
  });

  it('says a device suggested earlier that has gone is no longer among the devices, not that none has its name', async () => {
    // A device id from a suggestion read before the device went.
    const gone = '0123456789abcdef0123456789abcdef01234567';
    const reply = await world.slash('music', { subcommand: 'pause', options: { device: gone } }).reply();
    expect(reply.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toBe(
      'That device is no longer among your devices. Your devices: “Alice’s MacBook”, “Kitchen speaker”, and “Alice’s phone”.',
    );
  });

  it('says a restricted device cannot be controlled, whether picked or active', async () => {
    const picked = await world
      .slash('music', { subcommand: 'pause', options: { device: 'Kitchen speaker' } })
      .reply();
    expect(picked.content).toBe(
      '“Kitchen speaker” does not accept remote commands: the music service marks it as restricted. Pick another device.',
    );

    world.music!.setPlayer(premium, { isPlaying: true, activeDeviceId: 'alice-kitchen' });
    world.music!.resetCounters();
    // The bot knows from the device list, and names the device rather than send the command. No
    // other device can be picked instead: Pause and Next reach only the active one.
    const active = await world.slash('music', { subcommand: 'next' }).reply();
    expect(active.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(active.content).toBe(
      'Your active device “Kitchen speaker” does not accept remote commands (the music service marks it ' +
        'as restricted): skip the track there, or start playing on another device first.',
    );
    const paused = await world.slash('music', { subcommand: 'pause' }).reply();
    expect(paused.content).toBe(
      'Your active device “Kitchen speaker” does not accept remote commands (the music service marks it ' +
        'as restricted): pause it there, or start playing on another device first.',
    );
    // So do the panel's buttons, which act on the active device.
    const panel = await world.slash('music', { subcommand: 'player' }).reply();
    const pressed = await click(panel, 'Pause').waitForFollowUp();
    expect(pressed.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(pressed.content).toBe(paused.content);
    expect(world.music!.requestCount({ path: /^\/v1\/me\/player\/(pause|next)$/ })).toBe(0);
    expect(world.music!.player(premium)?.isPlaying).toBe(true);
    world.music!.setPlayer(premium, { activeDeviceId: 'alice-laptop' });
  });

  it('says premium is required, privately, when a free account opens the panel', async () => {
    const handle = world.slash('music', { subcommand: 'player', userId: world.bob.id });
    const error = await handle.waitForFollowUp();
    expect(error.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(error.content).toBe('Controlling playback needs a premium music account.');
    expect(world.discord.messages(world.channelId).some((m) => m.content?.includes('premium'))).toBe(false);
  });

  it('lists the devices when none is active', async () => {
    const reply = await world.slash('music', { subcommand: 'pause', userId: carol.id }).reply();
    expect(reply.content).toMatch(/No active device/);
    expect(reply.embeds[0]?.title).toBe('Your devices');
    expect(reply.embeds[0]?.description).toContain('Carol’s PC');
  });

  // Near the end: the 429 pauses every music call of the bot for the two minutes it asks for.
  it('says when to try again when the service is rate limiting', async () => {
    world.music!.setRateLimit({ retryAfterSeconds: 120, count: 1, path: '/v1/me/player/devices' });
    const reply = await world.slash('music', { subcommand: 'devices' }).reply();
    expect(reply.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toMatch(/try again in 2 minutes/);
  });

  it('offers the link button to a member without a linked account', async () => {
    const dave = world.discord.createUser({ username: 'dave' });
    const reply = await world.slash('music', { subcommand: 'player', userId: dave.id }).reply();
    expect(reply.flags! & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.embeds[0]?.title).toBe('Link your music account first');
    const url = (reply.components?.[0] as { components: { url?: string }[] }).components[0]?.url;
    expect(url).toMatch(/\/link\/start\?ticket=[A-Za-z0-9_-]+$/);
  });
});
