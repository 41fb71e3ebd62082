/**
 * A member's weather preferences as stored: each change keeps the other preference, a cleared one
 * is gone, and fields a newer version stored are kept.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import {
  clearMemberHome,
  getMemberPrefs,
  saveMemberHome,
  saveMemberUnits,
} from '../../src/domain/weather/prefs.js';

const BERLIN = { lat: 52.52, lon: 13.405, label: 'Berlin, DE' };

describe('a member’s weather preferences', () => {
  it('keeps the units when the home is set and cleared, and the home when the units change', async () => {
    const store = new Keyv();
    await saveMemberUnits(store, 'u1', 'imperial');
    await saveMemberHome(store, 'u1', BERLIN);
    expect(await getMemberPrefs(store, 'u1')).toEqual({ units: 'imperial', home: BERLIN });
    await saveMemberUnits(store, 'u1', undefined);
    expect(await getMemberPrefs(store, 'u1')).toEqual({ home: BERLIN });
    expect(await clearMemberHome(store, 'u1')).toBe(true);
    expect(await getMemberPrefs(store, 'u1')).toEqual({});
    expect(await store.get('weather:member:u1')).toBeUndefined();
  });

  it('keeps what a newer version stored beside them', async () => {
    const store = new Keyv();
    await store.set('weather:member:u1', { units: 'metric', places: [BERLIN], alerts: true });
    await saveMemberHome(store, 'u1', BERLIN);
    await clearMemberHome(store, 'u1');
    expect(await store.get('weather:member:u1')).toEqual({
      units: 'metric',
      places: [BERLIN],
      alerts: true,
    });
  });
});
