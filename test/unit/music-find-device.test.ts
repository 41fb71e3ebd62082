import { describe, expect, it } from 'vitest';
import { findDevice } from '../../src/domain/music/player.js';
import { device } from '../fixtures/music-render.js';

describe('a device named in /music pause and /music next', () => {
  const speaker = device({ id: 'a'.repeat(40), name: 'Living Room 🔊' });
  const tv = device({ id: 'b'.repeat(40), name: 'Living Room 📺' });
  const phone = device({ id: 'c'.repeat(40), name: 'Alice’s phone' });

  it('is refused, naming them, when several answer to the name only once emoji are set aside', () => {
    expect(() => findDevice([speaker, tv, phone], 'living room')).toThrow(
      '2 of your devices answer to “living room”: “Living Room 🔊” and “Living Room 📺”. Pick one from the suggestions.',
    );
  });

  it('is found by its id, by its exact name, or by one name folded alike', () => {
    expect(findDevice([speaker, tv, phone], 'b'.repeat(40))).toBe(tv);
    expect(findDevice([speaker, tv, phone], 'living room 📺')).toBe(tv);
    expect(findDevice([speaker, tv, phone], "alice's phone")).toBe(phone);
    expect(findDevice([speaker, tv, phone], 'kitchen')).toBeUndefined();
  });
});
