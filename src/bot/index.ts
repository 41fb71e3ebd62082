import { once } from 'node:events';
import { Events, type Client, type Interaction } from 'discord.js';
import type { Logger } from '../logger.js';

export interface StartBotOptions {
  client: Client;
  token: string;
  route: (interaction: Interaction) => Promise<void>;
  logger: Logger;
  /** How long to wait for the gateway to say READY. */
  readyTimeoutMs?: number;
}

/** Logs in, routes interactions, resolves once the client is ready. */
export async function startBot({ client, token, route, logger, readyTimeoutMs = 30_000 }: StartBotOptions) {
  client.on(Events.InteractionCreate, (interaction) => {
    void route(interaction);
  });
  client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
  client.on(Events.ShardDisconnect, (_event, shardId) => logger.warn({ shardId }, 'gateway disconnected'));
  client.on(Events.ShardResume, (shardId) => logger.info({ shardId }, 'gateway resumed'));

  const ready = once(client, Events.ClientReady, { signal: AbortSignal.timeout(readyTimeoutMs) });
  await client.login(token);
  await ready;
  logger.info({ user: client.user?.tag, guilds: client.guilds.cache.size }, 'connected to Discord');
}
