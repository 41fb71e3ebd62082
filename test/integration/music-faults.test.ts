import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, TimeoutError } from '../../src/services/http/errors.js';
import { createMusicWorld, recordingSleep, type MusicWorld } from '../fixtures/music.js';

describe('the music client against server faults', () => {
  let world: MusicWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  const start = async (transport: { timeoutMs?: number; retries?: number } = {}) => {
    const { sleep, waits } = recordingSleep();
    const current = await createMusicWorld({ client: { transport: { sleep, ...transport } } });
    current.signIn('alice');
    world = current;
    const f = current.emulator.fixtures ?? expect.fail('seeded');
    return { world: current, f, waits };
  };

  it('gives up on a stalled answer after its time limit, with a TimeoutError', async () => {
    const { world: current, f } = await start({ timeoutMs: 150, retries: 0 });
    const path = `/v1/albums/${f.albumIds[0]}`;
    await current.music.albums.get(f.albumIds[0] ?? ''); // token fetched, connection warm
    current.emulator.stallNext(path, 2_000);
    const started = performance.now();
    const error = await current.music.albums.get(f.albumIds[0] ?? '').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(`GET ${path}?market=US timed out after 150 ms`);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('also times out when the body stalls after the headers', async () => {
    const { world: current } = await start({ timeoutMs: 150, retries: 0 });
    current.emulator.stallNext('/v1/me/player/devices', 2_000, { phase: 'body' });
    await expect(current.music.player.devices('alice')).rejects.toBeInstanceOf(TimeoutError);
  });

  it('retries a stalled idempotent call, which then succeeds', async () => {
    // Each try gets half of the call's 1 s: the stalled first try leaves time for a second.
    const { world: current, f, waits } = await start({ timeoutMs: 1_000 });
    const path = `/v1/albums/${f.albumIds[0]}`;
    current.emulator.stallNext(path, 2_000);
    const album = await current.music.albums.get(f.albumIds[0] ?? '');
    expect(album.id).toBe(f.albumIds[0]);
    expect(current.emulator.requestCount({ path })).toBe(2);
    expect(waits).toHaveLength(1);
  });

  it('retries a 503 on a GET, and makes at most 3 tries in all', async () => {
    const { world: current, f, waits } = await start();
    const path = `/v1/albums/${f.albumIds[0]}`;
    current.emulator.failNext(path, 503);
    await current.music.albums.get(f.albumIds[0] ?? '');
    expect(current.emulator.requestCount({ path })).toBe(2);

    current.emulator.resetCounters();
    for (let i = 0; i < 4; i++) current.emulator.failNext(path, 502);
    await expect(current.music.albums.get(f.albumIds[0] ?? '')).rejects.toMatchObject({ status: 502 });
    expect(current.emulator.requestCount({ path })).toBe(3);
    expect(waits.length).toBe(3);
  });

  it('never retries a POST', async () => {
    const { world: current } = await start();
    current.emulator.failNext('/v1/me/player/next', 503);
    const error = await current.music.player.next('alice').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(current.emulator.requestCount({ path: '/v1/me/player/next' })).toBe(1);
    expect(current.emulator.player('alice')?.trackIndex).toBe(0);
  });

  it.each([400, 403, 404])('never retries a %i', async (status) => {
    const { world: current } = await start();
    current.emulator.failNext('/v1/me/player/devices', status);
    await expect(current.music.player.devices('alice')).rejects.toMatchObject({ status });
    expect(current.emulator.requestCount({ path: '/v1/me/player/devices' })).toBe(1);
  });

  it('asks for the member token once more after a 401, and not again after a second one', async () => {
    const { world: current } = await start();
    const path = '/v1/me/player/devices';
    current.emulator.failNext(path, 401);
    expect((await current.music.player.devices('alice')).length).toBeGreaterThan(0);
    expect(current.emulator.requestCount({ path })).toBe(2);
    current.emulator.resetCounters();
    current.emulator.failNext(path, 401);
    current.emulator.failNext(path, 401);
    await expect(current.music.player.devices('alice')).rejects.toMatchObject({ status: 401 });
    expect(current.emulator.requestCount({ path })).toBe(2);
  });
});
