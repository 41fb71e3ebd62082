/** Discord's epoch (2015-01-01T00:00:00Z): snowflake timestamps count milliseconds from here. */
export const DISCORD_EPOCH_MS = 1_420_070_400_000;

/**
 * Generates Discord-shaped snowflakes that sort by creation: ids made within one millisecond (or
 * while an injected clock stands still) share its timestamp and differ in the 12-bit increment, as
 * Discord's do, so a burst does not push timestamps ahead of the clock. Only the 4,097th id of one
 * millisecond borrows the next.
 */
export class SnowflakeGenerator {
  #lastMs = 0;
  #increment = 0n;

  constructor(private readonly now: () => number) {}

  next(): string {
    let ms = Math.max(Math.floor(this.now()), this.#lastMs);
    if (ms === this.#lastMs) {
      this.#increment = (this.#increment + 1n) & 0xfffn;
      if (this.#increment === 0n) ms += 1;
    } else {
      this.#increment = 0n;
    }
    this.#lastMs = ms;
    const workerId = 1n;
    const processId = 0n;
    return (
      (BigInt(ms - DISCORD_EPOCH_MS) << 22n) |
      (workerId << 17n) |
      (processId << 12n) |
      this.#increment
    ).toString();
  }
}

export function snowflakeTimestamp(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}

/** The shard a guild's events go to, as Discord computes it. */
export function shardIdForGuild(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}
