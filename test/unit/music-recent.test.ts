/** The member's recent albums and artists, found by what they type. */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import {
  matchRecent,
  rememberRecent,
  resolveRecent,
  type RecentItem,
} from '../../src/domain/music/recent.js';

const USER = '100';
const item = (id: string, name: string, detail?: string): RecentItem => ({
  id: id.padEnd(22, '0'),
  name,
  ...(detail === undefined ? {} : { detail }),
});
const cafe = item('cafe', 'Café del Mar', 'Chill, Ambient');
const alice = item('alice', 'Alice’s Songs', 'Sigur Rós');
const road = item('road', '🚗 Road Songs');

describe('recent albums and artists, as members type them', () => {
  it('suggests those whose name or detail holds what was typed, accents, curly apostrophes and emoji aside', () => {
    const items = [cafe, alice, road];
    expect(matchRecent(items, 'cafe')).toEqual([cafe]);
    expect(matchRecent(items, "alice's")).toEqual([alice]);
    expect(matchRecent(items, 'sigur ros')).toEqual([alice]);
    expect(matchRecent(items, 'road songs')).toEqual([road]);
    expect(matchRecent(items, 'songs')).toEqual([alice, road]);
  });

  it('takes a name typed without picking a suggestion, folded alike', async () => {
    const store = new Keyv();
    await rememberRecent(store, USER, 'albums', [cafe, alice, road]);
    expect(await resolveRecent(store, USER, 'albums', 'cafe del mar')).toBe(cafe.id);
    expect(await resolveRecent(store, USER, 'albums', "Alice's songs")).toBe(alice.id);
    expect(await resolveRecent(store, USER, 'albums', 'Road Songs')).toBe(road.id);
  });
});
