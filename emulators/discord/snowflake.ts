/** Discord's epoch (2015-01-01T00:00:00Z): snowflake timestamps count milliseconds from here. */
export const DISCORD_EPOCH_MS = 1_420_070_400_000;

/**
 * Generates Discord-shaped snowflakes whose timestamps strictly increase, so ids sort by creation
 * even when several are made within one millisecond or the injected clock stands still.
 */
export class SnowflakeGenerator {
  #lastMs = 0;
  #increment = 0n;

  constructor(private readonly now: () => number) {}

  next(): string {
    const ms = Math.max(Math.floor(this.now()), this.#lastMs + 1);
    this.#lastMs = ms;
    this.#increment = (this.#increment + 1n) & 0xfffn;
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
