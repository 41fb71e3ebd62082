/** The demo's scripted tour: each step drives the Discord emulator like a member would. */
import type { APIMessage } from 'discord-api-types/v10';
import type { DiscordEmulator } from '../../emulators/discord/index.js';
import type { MusicEmulator } from '../../emulators/music/index.js';
import { completeLink } from '../../emulators/music/walk.js';
import { messageText } from './print.js';

export interface TourWorld {
  discord: DiscordEmulator;
  music: MusicEmulator;
  guildId: string;
  channelId: string;
  userId: string;
}

interface Step {
  say: string;
  run(
    world: TourWorld,
    print: (line: string) => void,
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

function linkUrl(message: Pick<APIMessage, 'components'>): string {
  for (const row of message.components ?? []) {
    for (const component of (row as { components?: { url?: unknown }[] }).components ?? []) {
      if (typeof component.url === 'string') return component.url;
    }
  }
  throw new Error('no link button in the answer');
}

export const steps: Step[] = [
  {
    say: '/help',
    run: (world) => slash(world, 'help').reply(),
    expect: (answer) => (answer.embeds[0]?.fields?.length ?? 0) > 0,
  },
  {
    say: '/music link  (then the member opens the button and agrees on the music service)',
    async run(world, print) {
      const handle = slash(world, 'music', { subcommand: 'link' });
      const prompt = await handle.reply();
      print(messageText(prompt));
      const page = await completeLink(world.music, linkUrl(prompt), world.music.fixtures!.users.premium);
      print(`  (browser) ${/<h1>(.*?)<\/h1>/.exec(page.body)?.[1] ?? page.status}`);
      print('  (the ephemeral message is then edited to:)');
      return handle.waitForEdit();
    },
    expect: (answer) => answer.embeds[0]?.title === 'Music account linked',
  },
  {
    say: '/music status',
    run: (world) => slash(world, 'music', { subcommand: 'status' }).reply(),
    expect: (answer) => answer.embeds[0]?.title === 'Your music account',
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
      const answer = await step.run(world, print);
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
