/**
 * A member's weather preferences as stored: each change keeps the other preference, a cleared one
 * is gone, fields a newer version stored are kept, and two changes made at once both stay.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  clearMemberHome,
  getMemberPrefs,
  saveMemberHome,
  saveMemberUnits,
} from '../../src/domain/weather/prefs.js';
import { createStorage, type Storage } from '../../src/storage/index.js';

const BERLIN = { lat: 52.52, lon: 13.405, label: 'Berlin, DE' };
const OSLO = { lat: 59.9139, lon: 10.7522, label: 'Oslo, NO' };

describe('a member’s weather preferences', () => {
  let dataDir: string;
  let storage: Storage;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'bot-prefs-'));
    storage = await createStorage({ dataDir });
  });
  afterEach(async () => {
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the units when the home is set and cleared, and the home when the units change', async () => {
    await saveMemberUnits(storage, 'u1', 'imperial');
    await saveMemberHome(storage, 'u1', BERLIN);
    expect(await getMemberPrefs(storage, 'u1')).toEqual({ units: 'imperial', home: BERLIN });
    await saveMemberUnits(storage, 'u1', undefined);
    expect(await getMemberPrefs(storage, 'u1')).toEqual({ home: BERLIN });
    expect(await clearMemberHome(storage, 'u1')).toBe(true);
    expect(await clearMemberHome(storage, 'u1')).toBe(false);
    expect(await getMemberPrefs(storage, 'u1')).toEqual({});
    expect(await storage.ns('prefs').get('weather:member:u1')).toBeUndefined();
  });

  it('keeps what a newer version stored beside them', async () => {
    await storage.ns('prefs').set('weather:member:u1', { units: 'metric', places: [BERLIN], alerts: true });
    await saveMemberHome(storage, 'u1', BERLIN);
    await clearMemberHome(storage, 'u1');
    expect(await storage.ns('prefs').get('weather:member:u1')).toEqual({
      units: 'metric',
      places: [BERLIN],
      alerts: true,
    });
  });

  it('keeps both of two changes made at the same moment (units in one server, home in another)', async () => {
    for (let round = 0; round < 5; round++) {
      await storage.ns('prefs').delete('weather:member:u1');
      const home = round % 2 === 0 ? BERLIN : OSLO;
      await Promise.all([saveMemberUnits(storage, 'u1', 'imperial'), saveMemberHome(storage, 'u1', home)]);
      expect(await getMemberPrefs(storage, 'u1')).toEqual({ units: 'imperial', home });
    }
  });
});
