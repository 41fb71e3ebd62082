/** The Discord emulator's ids: Discord-shaped snowflakes that sort by creation and keep to the clock. */
import { describe, expect, it } from 'vitest';
import { SnowflakeGenerator, snowflakeTimestamp } from '../../emulators/discord/snowflake.js';

const NOW = Date.parse('2026-11-23T06:00:00.000Z');

describe('snowflakes', () => {
  it('sort by creation and keep the clock’s time through a burst within one millisecond', () => {
    const ids = new SnowflakeGenerator(() => NOW);
    const burst = Array.from({ length: 2_000 }, () => BigInt(ids.next()));
    expect(burst.every((id, i) => i === 0 || id > burst[i - 1]!)).toBe(true);
    // A message made in this burst is not dated seconds ahead of the clock.
    expect(burst.every((id) => snowflakeTimestamp(id.toString()) === NOW)).toBe(true);
  });

  it('borrow the next millisecond only past the 4,096 ids one millisecond holds', () => {
    const ids = new SnowflakeGenerator(() => NOW);
    const stamps = Array.from({ length: 5_000 }, () => snowflakeTimestamp(ids.next()));
    expect(Math.max(...stamps)).toBe(NOW + 1);
    expect(stamps.filter((ms) => ms === NOW)).toHaveLength(4_096);
  });

  it('follow the clock when it moves on, and never go back when it goes back', () => {
    let now = NOW;
    const ids = new SnowflakeGenerator(() => now);
    const first = ids.next();
    now += 250;
    const later = ids.next();
    expect(snowflakeTimestamp(later)).toBe(NOW + 250);
    now -= 1_000;
    const afterStepBack = ids.next();
    expect(BigInt(afterStepBack) > BigInt(later)).toBe(true);
    expect(BigInt(later) > BigInt(first)).toBe(true);
  });
});
