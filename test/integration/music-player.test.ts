import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  NoActiveDeviceError,
  NotFoundError,
  PlayerRestrictionError,
  PremiumRequiredError,
} from '../../src/services/music/index.js';
import { createMusicWorld, VARIANTS, type MusicWorld } from '../fixtures/music.js';

describe('player', () => {
  let world: MusicWorld;

  beforeAll(async () => {
    world = await createMusicWorld();
    for (const user of ['alice', 'bob', 'carol']) world.signIn(user);
  });
  beforeEach(() =>
    world.emulator.setPlayer('alice', { isPlaying: true, activeDeviceId: 'alice-laptop', trackIndex: 0 }),
  );
  afterAll(() => world.close());

  it('lists devices, including restricted ones and a null volume', async () => {
    const devices = await world.music.player.devices('alice');
    expect(devices.map((d) => [d.name, d.is_active, d.is_restricted])).toEqual([
      ['Alice’s MacBook', true, false],
      ['Kitchen speaker', false, true],
      ['Alice’s phone', false, false],
    ]);
    expect(devices[1]?.volume_percent).toBeNull();
  });

  it('pauses the active device', async () => {
    await world.music.player.pause('alice');
    expect(world.emulator.player('alice')?.isPlaying).toBe(false);
  });

  it('refuses to pause what is already paused, with the reason', async () => {
    await world.music.player.pause('alice');
    const error = await world.music.player.pause('alice').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlayerRestrictionError);
    expect(error).toMatchObject({ status: 403, reason: 'UNKNOWN' });
    expect((error as PlayerRestrictionError).userMessage).toMatch(/paused already/);
  });

  it('skips to the next track', async () => {
    await world.music.player.next('alice');
    await world.music.player.next('alice', { deviceId: 'alice-laptop' });
    expect(world.emulator.player('alice')?.trackIndex).toBe(2);
  });

  it('refuses a restricted device', async () => {
    await expect(world.music.player.next('alice', { deviceId: 'alice-kitchen' })).rejects.toMatchObject({
      name: 'PlayerRestrictionError',
      reason: 'DEVICE_NOT_CONTROLLABLE',
    });
  });

  it('says premium is required for a free account', async () => {
    const error = await world.music.player.pause('bob').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PremiumRequiredError);
    expect((error as PremiumRequiredError).userMessage).toMatch(/premium/i);
  });

  it('says there is no active device', async () => {
    const error = await world.music.player.next('carol').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoActiveDeviceError);
    expect(error).not.toBeInstanceOf(PremiumRequiredError);
  });

  it('says a device the service no longer knows is not available, not to check a link', async () => {
    const error = await world.music.player.pause('alice', { deviceId: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).userMessage).toBe(
      'That device is no longer available: choose another one.',
    );
  });
});

describe.each(VARIANTS)('current user (%s API)', (variant) => {
  let world: MusicWorld;
  beforeAll(async () => {
    world = await createMusicWorld({ variant });
    world.signIn('alice');
  });
  afterAll(() => world.close());

  it('reads the profile, tolerating the fields development-mode apps lost', async () => {
    const me = await world.music.users.me('alice');
    expect(me).toMatchObject({ id: 'alice', display_name: 'Alice', type: 'user' });
    expect(me.account_id).toBeTypeOf('string');
    if (variant === 'classic')
      expect(me).toMatchObject({ country: 'US', product: 'premium', email: 'alice@mail.example' });
    else
      expect([me.country, me.product, me.email, me.followers]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
  });
});
