/**
 * Schedule ids are eight hex digits (typed by server managers) and key the slot markers, the nonce
 * and the queue's job scheduler across every server: one already in use is never handed out again.
 */
import type * as crypto from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { ScheduleStore } from '../../src/services/schedules/store.js';
import { createStorage } from '../../src/storage/index.js';
import { berlinSchedule } from '../fixtures/schedules.js';

/** The UUIDs `randomUUID` hands out next, before it falls back to real ones. */
const drawn = vi.hoisted(() => ({ next: [] as string[] }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof crypto>();
  return { ...real, randomUUID: () => drawn.next.shift() ?? real.randomUUID() };
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

it('draws a schedule id again when another server’s schedule already has it', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-sched-ids-'));
  const storage = await createStorage({ dataDir });
  cleanups.push(async () => {
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const store = new ScheduleStore(storage, 25);
  drawn.next = ['aaaaaaaa-1111-4111-8111-111111111111'];
  const first = await store.add(berlinSchedule({ guildId: '1001' }));
  drawn.next = ['aaaaaaaa-2222-4222-8222-222222222222', 'bbbbbbbb-3333-4333-8333-333333333333'];
  const second = await store.add(berlinSchedule({ guildId: '1002' }));
  expect([first.id, second.id]).toEqual(['aaaaaaaa', 'bbbbbbbb']);
});
