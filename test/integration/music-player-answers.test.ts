import Keyv from 'keyv';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeForUser } from '../../src/bot/errors.js';
import type { MusicDeps } from '../../src/domain/music/deps.js';
import { pausePlayback, skipToNext } from '../../src/domain/music/player.js';
import { HttpError, NetworkError, TimeoutError } from '../../src/services/http/errors.js';
import { NoActiveDeviceError } from '../../src/services/music/index.js';
import { createMusicWorld, recordingSleep, type MusicWorld } from '../fixtures/music.js';

/** What the member reads when `run` fails. */
async function answerTo(run: Promise<unknown>): Promise<{ error: unknown; text: string | undefined }> {
  const error = await run.then(
    () => expect.fail('expected the command to fail'),
    (e: unknown) => e,
  );
  return { error, text: describeForUser(error) };
}

describe('what a member reads when a player command does not go through', () => {
  let world: MusicWorld;
  let deps: MusicDeps;

  beforeAll(async () => {
    const { sleep } = recordingSleep();
    world = await createMusicWorld({ client: { transport: { timeoutMs: 500, sleep } } });
    for (const user of ['alice', 'carol']) world.signIn(user);
  });
  beforeEach(() => {
    deps = { client: world.music, cache: new Keyv(), recent: new Keyv() };
    world.emulator.setPlayer('alice', { isPlaying: true, activeDeviceId: 'alice-laptop', trackIndex: 0 });
  });
  afterAll(() => world.close());

  it('names the active device when the chosen one is not it, and keeps the service’s error', async () => {
    const { error, text } = await answerTo(pausePlayback(deps, 'alice', 'alice-phone', 'panel'));
    expect(text).toBe(
      '“Alice’s phone” is not your active device, and Pause and Next work only on that one. ' +
        'Your active device is “Alice’s MacBook”: pick it, or start playing on “Alice’s phone” first.',
    );
    // Still a "no active device" refusal, so the member is shown their devices with it.
    expect(error).toBeInstanceOf(NoActiveDeviceError);
    expect((error as Error).cause).toBeInstanceOf(NoActiveDeviceError);
    expect(world.emulator.player('alice')?.isPlaying).toBe(true);
  });

  it('does not call a paused active device playing, and Next there works', async () => {
    world.emulator.setPlayer('alice', { isPlaying: false, activeDeviceId: 'alice-laptop' });
    const { text } = await answerTo(skipToNext(deps, 'alice', 'Alice’s phone'));
    expect(text).toBe(
      '“Alice’s phone” is not your active device, and Pause and Next work only on that one. ' +
        'Your active device is “Alice’s MacBook”: pick it, or start playing on “Alice’s phone” first.',
    );
    const skipped = await skipToNext(deps, 'alice', 'Alice’s MacBook');
    expect(skipped.device?.name).toBe('Alice’s MacBook');
    expect(world.emulator.player('alice')?.trackIndex).toBe(1);
  });

  it('does not offer an active device that refuses remote commands', async () => {
    world.emulator.setPlayer('alice', { activeDeviceId: 'alice-kitchen' });
    const { text } = await answerTo(skipToNext(deps, 'alice', 'Alice’s phone'));
    expect(text).toBe(
      '“Alice’s phone” is not your active device, and Pause and Next work only on that one. ' +
        'Your active device is “Kitchen speaker”, which does not accept remote commands: ' +
        'start playing on “Alice’s phone” first.',
    );
  });

  it('refuses, without asking the service, a command with no device named when the active one is restricted', async () => {
    world.emulator.setPlayer('alice', { isPlaying: true, activeDeviceId: 'alice-kitchen' });
    world.emulator.resetCounters();
    const { text } = await answerTo(pausePlayback(deps, 'alice'));
    expect(text).toBe(
      'Your active device “Kitchen speaker” does not accept remote commands (the music service marks it ' +
        'as restricted): pause it there, or start playing on another device first.',
    );
    expect(world.emulator.requestCount({ path: '/v1/me/player/pause' })).toBe(0);
    expect(world.emulator.player('alice')?.isPlaying).toBe(true);
  });

  it('says a device the service lists without an id cannot be named, rather than that there is none', async () => {
    const listed = await world.music.player.devices('alice');
    const noId = { ...listed[0]!, id: null, name: 'Car stereo', is_active: false };
    const client = {
      ...world.music,
      player: { ...world.music.player, devices: () => Promise.resolve([...listed, noId]) },
    };
    world.emulator.resetCounters();
    const { text } = await answerTo(pausePlayback({ ...deps, client }, 'alice', 'car stereo'));
    expect(text).toBe(
      'The music service gives “Car stereo” no id, so a command cannot be sent to it by name. ' +
        'Leave the device out to act on your active device, if that is the one.',
    );
    expect(world.emulator.requestCount({ path: '/v1/me/player/pause' })).toBe(0);
  });

  it('does not call a device inactive that the list just showed active', async () => {
    // The list says the phone is active; by the time the command arrives the service finds it not.
    const listed = await world.music.player.devices('alice');
    const stale = listed.map((device) => ({ ...device, is_active: device.id === 'alice-phone' }));
    const client = {
      ...world.music,
      player: { ...world.music.player, devices: () => Promise.resolve(stale) },
    };
    const { text } = await answerTo(pausePlayback({ ...deps, client }, 'alice', 'Alice’s phone'));
    expect(text).toBe(
      'The music service says “Alice’s phone” is not active any more: start playing on “Alice’s phone” first.',
    );
  });

  it('says to start playing on the chosen device when no device is active', async () => {
    const { text } = await answerTo(pausePlayback(deps, 'carol', 'carol-pc'));
    expect(text).toBe(
      '“Carol’s PC” is not your active device, and Pause and Next work only on that one: ' +
        'start playing on “Carol’s PC” first.',
    );
  });

  it('says the panel’s device is gone, not that the member has no device called its id', async () => {
    const gone = 'a3f1c0de9b8e7d6c5b4a39281706f5e4d3c2b1a0';
    world.emulator.resetCounters();
    const { text } = await answerTo(skipToNext(deps, 'alice', gone, 'panel'));
    expect(text).toBe(
      'The device this panel was set to is no longer among your devices. Your devices: ' +
        '“Alice’s MacBook”, “Kitchen speaker”, and “Alice’s phone”. Press ↻ Refresh, or pick another device.',
    );
    expect(text).not.toContain(gone);
    expect(world.emulator.requestCount({ path: '/v1/me/player/next' })).toBe(0);
  });

  it('still says a typed device name is unknown', async () => {
    const { text } = await answerTo(pausePlayback(deps, 'alice', 'Living room'));
    expect(text).toBe(
      'You have no device called “Living room”. Your devices: “Alice’s MacBook”, “Kitchen speaker”, and ' +
        '“Alice’s phone”.',
    );
  });

  it.each([
    ['a 503', () => world.emulator.failNext('/v1/me/player/next', 503)],
    ['a time-out', () => world.emulator.stallNext('/v1/me/player/next', 2_000)],
  ])(
    'after %s on Next, says the skip may have happened and to check before pressing again',
    async (_label, fail) => {
      fail();
      world.emulator.resetCounters();
      const { error, text } = await answerTo(skipToNext(deps, 'alice'));
      expect(text).toBe(
        'The music service did not confirm the skip, and it may have skipped already: ' +
          'check your player before you press Next again.',
      );
      // The log still shows what happened.
      expect((error as Error).cause).toSatisfy(
        (cause) => cause instanceof HttpError || cause instanceof TimeoutError,
      );
      expect(world.emulator.requestCount({ path: '/v1/me/player/next' })).toBe(1);
    },
  );

  it('says the same after a lost connection on Next', async () => {
    const lost = new NetworkError('music', 'POST', 'https://api.music.test/v1/me/player/next', 'ECONNRESET');
    const client = { ...world.music, player: { ...world.music.player, next: () => Promise.reject(lost) } };
    const { error, text } = await answerTo(skipToNext({ ...deps, client }, 'alice'));
    expect(text).toMatch(/^The music service did not confirm the skip/);
    expect((error as Error).cause).toBe(lost);
  });

  it('keeps “not answering” for a 503 on Pause, which is harmless to press twice', async () => {
    // A pause is retried: every try fails.
    for (let i = 0; i < 3; i++) world.emulator.failNext('/v1/me/player/pause', 503);
    const { text } = await answerTo(pausePlayback(deps, 'alice'));
    expect(text).toBe('The music service is not answering right now. Please try again in a minute.');
  });
});
