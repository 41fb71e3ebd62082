import { Client, Events, GatewayIntentBits } from 'discord.js';
import type { ClientOptions, Interaction } from 'discord.js';
import type { DiscordEmulator } from '../../emulators/discord/index.js';

export interface EmulatedClient {
  client: Client<true>;
  /** Milliseconds from `login()` to the client's ready event. */
  readyMs: number;
  /** The next interaction the client receives (already received ones first). */
  nextInteraction(timeoutMs?: number): Promise<Interaction>;
  /** Forgets interactions received but not taken. */
  clearInteractions(): void;
}

/**
 * Logs a real discord.js client into the emulator (`rest.api` pointed at it) and waits until it is
 * ready. The client's interactions queue up for `nextInteraction()`, so a test can play the user
 * (through the emulator) and the bot (through discord.js) side by side.
 */
export async function loginToEmulator(
  emulator: DiscordEmulator,
  options: Partial<ClientOptions> & { token?: string } = {},
): Promise<EmulatedClient> {
  const { token = 'emulator-bot-token', rest, ...clientOptions } = options;
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    ...clientOptions,
    rest: { ...rest, api: emulator.restUrl },
  });
  const received: Interaction[] = [];
  const waiting: ((interaction: Interaction) => void)[] = [];
  client.on(Events.InteractionCreate, (interaction) => {
    const waiter = waiting.shift();
    if (waiter) waiter(interaction);
    else received.push(interaction);
  });
  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
  const started = performance.now();
  try {
    await client.login(token);
  } catch (error) {
    await client.destroy();
    throw error;
  }
  const readyClient = await ready;
  const readyMs = performance.now() - started;
  return {
    client: readyClient,
    readyMs,
    nextInteraction(timeoutMs = 5_000) {
      const queued = received.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise<Interaction>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(take), 1);
          reject(new Error(`No interaction reached the client within ${timeoutMs} ms`));
        }, timeoutMs);
        const take = (interaction: Interaction) => {
          clearTimeout(timer);
          resolve(interaction);
        };
        waiting.push(take);
      });
    },
    clearInteractions() {
      received.length = 0;
    },
  };
}
