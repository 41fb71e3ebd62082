/**
 * Fuzzing the interaction router with fast-check: generated slash commands (every registered
 * subcommand, random option values with unicode and oversized strings), autocomplete, forged and
 * truncated `custom_id`s on buttons of real bot messages, and a command the bot does not know.
 * The bot must not crash, leave no unhandled rejection, and answer every interaction in time.
 * It runs with canary values for every secret; afterwards its logs and every message it created or
 * edited (ephemeral ones too) are searched for them.
 */
import { InteractionResponseType } from 'discord-api-types/v10';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionHandle } from '../../emulators/discord/index.js';
import { forgedCustomId, slashArbitrary, type GeneratedSlash, type Ids } from '../helpers/reliability-gen.js';
import {
  CANARY,
  kindsNotSeen,
  leaks,
  recordMessages,
  secretsSeen,
  startReliabilityWorld,
  type ReliabilityWorld,
} from '../helpers/reliability-world.js';

/** The issue asks for 10,000; the run stops earlier when the time budget is spent. */
const TARGET = Number(process.env['FUZZ_INTERACTIONS'] ?? 10_000);
const BUDGET_MS = Number(process.env['FUZZ_BUDGET_MS'] ?? 60_000);
const IN_FLIGHT = 12;

type Case =
  | { kind: 'slash'; slash: GeneratedSlash; asBob: boolean }
  | { kind: 'button'; customId: string; asBob: boolean }
  | { kind: 'unknown' };

const rejections: unknown[] = [];
const exceptions: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
const onException = (error: unknown) => exceptions.push(error);

function customIds(message: { components?: unknown[] | undefined } | undefined): string[] {
  const found: string[] = [];
  for (const row of message?.components ?? []) {
    for (const component of (row as { components?: { custom_id?: string }[] }).components ?? []) {
      if (component.custom_id) found.push(component.custom_id);
    }
  }
  return found;
}

describe('fuzzing the interaction router', () => {
  let world: ReliabilityWorld;
  let ids: Ids;
  const realIds = new Set<string>();
  /** Every message the bot created or edited, as members saw it (buttons aside: see below). */
  let messages: string[] = [];

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
    world = await startReliabilityWorld();
    messages = recordMessages(world.discord);
    await world.linkMusic(world.alice.id, world.music.fixtures!.users.premium);
    ids = {
      users: [world.alice.id, world.bob.id],
      channels: [world.channelId],
      roles: [world.guildId],
    };
    // A command Discord still shows but this bot does not handle (a stale registration).
    const response = await fetch(
      `${world.discord.restUrl}/v10/applications/${world.discord.applicationId}/guilds/${world.guildId}/commands`,
      {
        method: 'POST',
        headers: { authorization: `Bot ${CANARY.botToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ghost', description: 'Registered, but the bot has no handler' }),
      },
    );
    expect(response.ok).toBe(true);
    // Real custom ids, from the messages with buttons.
    for (const [name, subcommand, options] of [
      ['music', 'player', {}],
      ['music', 'devices', {}],
      ['music', 'playlists', {}],
      ['weather', 'daily', { place: 'geo:52.517,13.3889|Berlin, Berlin, DE' }],
      ['weather', 'hourly', { place: 'geo:52.517,13.3889|Berlin, Berlin, DE' }],
      ['help', undefined, {}],
    ] as const) {
      try {
        const reply = await world
          .slash(name, { ...(subcommand ? { subcommand } : {}), options: { ...options } })
          .reply(10_000);
        for (const id of customIds(reply)) realIds.add(id);
      } catch {
        // Not every command exists in every build; the fuzz still runs with what it found.
      }
    }
  }, 120_000);

  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
    await world?.close();
  });

  /** Posts a bot message whose buttons carry the given custom ids, so a click on them is possible. */
  async function messageWithButtons(customIdsOnIt: readonly string[]) {
    const unique = [...new Set(customIdsOnIt)].slice(0, 25);
    const rows = [];
    for (let i = 0; i < unique.length; i += 5) {
      rows.push({
        type: 1,
        components: unique.slice(i, i + 5).map((custom_id) => ({ type: 2, style: 1, label: 'x', custom_id })),
      });
    }
    const response = await fetch(`${world.discord.restUrl}/v10/channels/${world.channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${CANARY.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'fuzz', components: rows }),
    });
    if (!response.ok) throw new Error(`posting buttons failed: ${response.status} ${await response.text()}`);
    return { message: (await response.json()) as { id: string; components?: unknown[] }, ids: unique };
  }

  it('answers every generated interaction, with no crash and no unhandled rejection', async () => {
    const commands = world.discord.commands(world.guildId);
    const caseArb: fc.Arbitrary<Case> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(
            slashArbitrary(
              commands.filter((c) => c.name !== 'ghost'),
              ids,
            ),
            fc.boolean(),
          )
          .map(([slash, asBob]) => ({ kind: 'slash' as const, slash, asBob })),
      },
      {
        weight: 3,
        arbitrary: fc
          .tuple(forgedCustomId([...realIds], ids), fc.boolean())
          .map(([customId, asBob]) => ({ kind: 'button' as const, customId, asBob })),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
    );
    const cases = fc.sample(caseArb, { numRuns: TARGET, seed: 20_261_122 });

    // Buttons are clicked on real bot messages: put the forged ids on messages first, 25 a message.
    const buttonCases = cases.filter((c): c is Extract<Case, { kind: 'button' }> => c.kind === 'button');
    const messageFor = new Map<string, { id: string; components?: unknown[] }>();
    const started = Date.now();

    let done = 0;
    let refusedByEmulator = 0;
    const unanswered: string[] = [];
    const deferred: { handle: InteractionHandle; label: string }[] = [];
    let next = 0;

    async function run(c: Case): Promise<void> {
      const userId = c.kind !== 'unknown' && c.asBob ? world.bob.id : world.alice.id;
      let label = '';
      let handle: InteractionHandle;
      try {
        if (c.kind === 'slash') {
          label = JSON.stringify(c.slash).slice(0, 300);
          const { name, focused, ...rest } = c.slash;
          if (focused !== undefined) {
            await world.discord.autocomplete({
              guildId: world.guildId,
              channelId: world.channelId,
              userId,
              name,
              ...(rest.subcommandGroup ? { subcommandGroup: rest.subcommandGroup } : {}),
              ...(rest.subcommand ? { subcommand: rest.subcommand } : {}),
              options: rest.options,
              focused,
              timeoutMs: 3_000,
            });
            return;
          }
          handle = world.slash(name, { ...rest, userId });
        } else if (c.kind === 'button') {
          label = `button ${JSON.stringify(c.customId)}`;
          let message = messageFor.get(c.customId);
          if (!message) {
            const batch = buttonCases
              .slice(buttonCases.indexOf(c), buttonCases.indexOf(c) + 40)
              .map((b) => b.customId);
            const posted = await messageWithButtons([c.customId, ...batch]);
            for (const id of posted.ids) messageFor.set(id, posted.message);
            message = posted.message;
          }
          handle = world.discord.clickButton({
            userId,
            message: message,
            customId: c.customId,
          });
        } else {
          label = '/ghost';
          handle = world.slash('ghost', { userId });
        }
      } catch (error) {
        // The emulator refuses payloads Discord would never send (it validates like Discord).
        if (error instanceof Error && /deadline|late|timed out|Timed out/i.test(error.message)) {
          unanswered.push(`${label}: ${error.message}`);
        } else refusedByEmulator++;
        return;
      }
      try {
        const callback = await handle.waitForCallback(4_000);
        if (callback.type === InteractionResponseType.DeferredChannelMessageWithSource)
          deferred.push({ handle, label });
      } catch (error) {
        unanswered.push(`${label}: ${(error as Error).message.slice(0, 300)}`);
      }
    }

    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < cases.length && Date.now() - started < BUDGET_MS) {
          const c = cases[next++]!;
          await run(c);
          done++;
        }
      }),
    );
    const elapsed = Date.now() - started;
    const ran = cases.slice(0, done);
    const mix = {
      slash: ran.filter((c) => c.kind === 'slash' && c.slash.focused === undefined).length,
      autocomplete: ran.filter((c) => c.kind === 'slash' && c.slash.focused !== undefined).length,
      button: ran.filter((c) => c.kind === 'button').length,
      unknown: ran.filter((c) => c.kind === 'unknown').length,
    };

    // Deferred replies must end with an answer, not "thinking…" forever.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const stillThinking = deferred.filter(({ handle }) => ((handle.original()?.flags ?? 0) & 128) === 128);

    console.log(
      `fuzz: ${done} interactions in ${(elapsed / 1000).toFixed(1)} s (${JSON.stringify(mix)}; ${refusedByEmulator} refused by the emulator as invalid), ` +
        `${deferred.length} deferred, ${unanswered.length} unanswered, ${stillThinking.length} still thinking, ` +
        `${rejections.length} unhandled rejections, ${exceptions.length} uncaught exceptions`,
    );
    expect(unanswered.slice(0, 5)).toEqual([]);
    expect(stillThinking.map((d) => d.label).slice(0, 5)).toEqual([]);
    expect(rejections).toEqual([]);
    expect(exceptions).toEqual([]);
    expect(done).toBeGreaterThanOrEqual(Math.min(TARGET, 1_000));

    // And it still serves.
    const help = await world.slash('help').reply();
    expect((help.content?.length ?? 0) + (help.embeds?.length ?? 0)).toBeGreaterThan(0);
  }, 240_000);

  it('leaves no secret in a log line or a message after fuzzing', () => {
    const secrets = secretsSeen(world);
    expect(
      kindsNotSeen(secrets, ['bot token', 'client secret', 'weather key', 'access token', 'refresh token']),
    ).toEqual([]);
    expect(messages.length).toBeGreaterThan(1_000);
    expect(leaks(secrets, { logs: world.logs, 'Discord messages': messages })).toEqual([]);
  });
});
