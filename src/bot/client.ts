import { Client, GatewayIntentBits, Partials } from 'discord.js';

export interface DiscordClientOptions {
  /** Discord's REST base without the version segment, e.g. `https://discord.com/api`. */
  apiUrl: string;
  /** Shards this process runs; by default all of them, in this process. */
  shards?: number | number[] | 'auto';
  shardCount?: number;
}

/** The discord.js client with the few intents the bot needs (it reads no message content). */
export function createDiscordClient(options: DiscordClientOptions): Client {
  return new Client({
    intents: [GatewayIntentBits.Guilds],
    partials: [Partials.Channel],
    rest: { api: options.apiUrl },
    ...(options.shards === undefined ? {} : { shards: options.shards }),
    ...(options.shardCount === undefined ? {} : { shardCount: options.shardCount }),
  });
}
