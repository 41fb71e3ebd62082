/** The demo's scripted tour: each step drives the Discord emulator like a member would. */
import type { APIMessage } from 'discord-api-types/v10';
import type { DiscordEmulator } from '../../emulators/discord/index.js';
import { messageText } from './print.js';

export interface TourWorld {
  discord: DiscordEmulator;
  guildId: string;
  channelId: string;
  userId: string;
}

interface Step {
  say: string;
  run(
    world: TourWorld,
  ): Promise<Pick<APIMessage, 'content' | 'embeds' | 'components' | 'attachments' | 'flags'>>;
  /** What the answer must show for the step to count as passed. */
  expect(answer: Pick<APIMessage, 'content' | 'embeds'>): boolean;
}

const slash = (
  world: TourWorld,
  name: string,
  extra: { subcommand?: string; options?: Record<string, string | number | boolean> } = {},
) =>
  world.discord.slash({
    guildId: world.guildId,
    channelId: world.channelId,
    userId: world.userId,
    name,
    ...extra,
  });

export const steps: Step[] = [
  {
    say: '/help',
    run: (world) => slash(world, 'help').reply(),
    expect: (answer) => (answer.embeds[0]?.fields?.length ?? 0) > 0,
  },
];

/** Runs every step, printing what the bot answered; returns the number of failed steps. */
export async function runTour(
  world: TourWorld,
  print: (line: string) => void = console.log,
): Promise<number> {
  let failed = 0;
  for (const step of steps) {
    print(`\n> ${step.say}`);
    try {
      const answer = await step.run(world);
      print(messageText(answer));
      if (!step.expect(answer)) {
        failed++;
        print('  !! the answer was not what the tour expected');
      }
    } catch (error) {
      failed++;
      print(`  !! failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return failed;
}
