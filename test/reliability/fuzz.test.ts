/**
 * Fuzzing the interaction router with fast-check: generated slash commands (every registered
 * subcommand, random option values with unicode and oversized strings), autocomplete, forged and
 * truncated `custom_id`s on buttons of real bot messages, and a command the bot does not know.
 * The bot must not crash, leave no unhandled rejection, and answer every interaction in time.
 * It runs with canary values for every secret; afterwards its logs, the errors it logged and every
 * message it created or edited (ephemeral ones too, buttons included) are searched for them.
 */
import { InteractionResponseType } from 'discord-api-types/v10';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionHandle } from '../../emulators/discord/index.js';
import { forgedCustomId, slashArbitrary, type GeneratedSlash, type Ids } from '../helpers/reliability-gen.js';
import {
  CANARY,
  kindsNotSeen,
  WORLD_SECRET_KINDS,
  leaks,
  recordMessages,
  secretsSeen,
  settledText,
  startReliabilityWorld,
  type ReliabilityWorld,
} from '../helpers/reliability-world.js';

/** 10,000 by default, as the issue asks; every one of them is run (FUZZ_INTERACTIONS for fewer). */
const TARGET = Number(process.env['FUZZ_INTERACTIONS'] ?? 10_000);
const IN_FLIGHT = 12;
/** The test's time limit: generous for 10,000 on a busy CI machine, proportionally less for fewer. */
const TIMEOUT_MS = 120_000 + TARGET * 60;

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
    // Real custom ids, from messages with buttons: each of these commands answers with some (the
    // weather replies and /help have none).
    const { fixtures } = world.music;
    for (const [name, group, subcommand, options] of [
      ['music', undefined, 'player', {}],
      ['music', undefined, 'album', { album: fixtures!.catalog.longAlbumId }],
      ['music', 'playlist', 'view', { playlist: fixtures!.playlists.big }],
    ] as const) {
      const handle = world.slash(name, {
        ...(group ? { subcommandGroup: group } : {}),
        subcommand,
        options: { ...options },
      });
      await settledText(handle, 10_000);
      const found = [handle.original(), ...handle.followUps].flatMap(customIds);
      expect(found, `buttons of /${name} ${group ?? ''} ${subcommand}`).not.toEqual([]);
      for (const id of found) realIds.add(id);
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

  it(
    'answers every generated interaction, with no crash and no unhandled rejection',
    async () => {
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
      /** Payloads the emulator refused to send, as Discord would never send them (it validates like Discord). */
      const refusedByEmulator: string[] = [];
      const unanswered: string[] = [];
      const deferred: { handle: InteractionHandle; label: string }[] = [];
      let next = 0;

      async function run(c: Case): Promise<void> {
        const userId = c.kind !== 'unknown' && c.asBob ? world.bob.id : world.alice.id;
        const label =
          c.kind === 'slash'
            ? JSON.stringify(c.slash).slice(0, 300)
            : c.kind === 'button'
              ? `button ${JSON.stringify(c.customId)}`
              : '/ghost';
        let message: { id: string; components?: unknown[] } | undefined;
        if (c.kind === 'button') {
          message = messageFor.get(c.customId);
          if (!message) {
            const batch = buttonCases
              .slice(buttonCases.indexOf(c), buttonCases.indexOf(c) + 40)
              .map((b) => b.customId);
            const posted = await messageWithButtons([c.customId, ...batch]);
            for (const id of posted.ids) messageFor.set(id, posted.message);
            message = posted.message;
          }
        }
        // Only the emulator's checks of the payload throw here, before anything is sent to the bot.
        let answered: () => Promise<void>;
        try {
          if (c.kind === 'slash' && c.slash.focused !== undefined) {
            const { name, focused, subcommandGroup, subcommand, options } = c.slash;
            const choices = world.discord.autocomplete({
              guildId: world.guildId,
              channelId: world.channelId,
              userId,
              name,
              ...(subcommandGroup ? { subcommandGroup } : {}),
              ...(subcommand ? { subcommand } : {}),
              options,
              focused,
              timeoutMs: 3_000,
            });
            answered = async () => void (await choices);
          } else {
            let handle: InteractionHandle;
            if (c.kind === 'slash') {
              const { name, focused: _none, ...rest } = c.slash;
              handle = world.slash(name, { ...rest, userId });
            } else if (c.kind === 'button') {
              const click = (on: { id: string }) =>
                world.discord.clickButton({ userId, message: on, customId: c.customId });
              try {
                handle = click(message!);
              } catch (error) {
                // An earlier click on that message may have made the bot replace its buttons (a page
                // turned, the first page's "back" disabled): the button goes on a message of its own.
                if (!/has no Button with custom_id|is disabled/.test((error as Error).message)) throw error;
                handle = click((await messageWithButtons([c.customId])).message);
              }
            } else {
              handle = world.slash('ghost', { userId });
            }
            answered = async () => {
              const callback = await handle.waitForCallback(4_000);
              if (callback.type === InteractionResponseType.DeferredChannelMessageWithSource)
                deferred.push({ handle, label });
            };
          }
        } catch (error) {
          refusedByEmulator.push(`${label}: ${(error as Error).message.slice(0, 200)}`);
          return;
        }
        try {
          await answered();
        } catch (error) {
          unanswered.push(`${label}: ${(error as Error).message.slice(0, 300)}`);
        }
      }

      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < cases.length) {
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
        `fuzz: ${done} interactions in ${(elapsed / 1000).toFixed(1)} s (${JSON.stringify(mix)}; ${refusedByEmulator.length} refused by the emulator as invalid${refusedByEmulator.length > 0 ? `, e.g. ${refusedByEmulator.slice(0, 3).join(' | ')}` : ''}), ` +
          `${deferred.length} deferred, ${unanswered.length} unanswered, ${stillThinking.length} still thinking, ` +
          `${rejections.length} unhandled rejections, ${exceptions.length} uncaught exceptions`,
      );
      expect(unanswered.slice(0, 5)).toEqual([]);
      expect(stillThinking.map((d) => d.label).slice(0, 5)).toEqual([]);
      expect(rejections).toEqual([]);
      expect(exceptions).toEqual([]);
      expect(done).toBe(TARGET);
      // Nearly every generated payload is one Discord could send, so nearly all of them reached the bot.
      expect(refusedByEmulator.length, refusedByEmulator.slice(0, 5).join('\n')).toBeLessThan(TARGET / 100);

      // And it still serves.
      const help = await world.slash('help').reply();
      expect((help.content?.length ?? 0) + (help.embeds?.length ?? 0)).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );

  it('leaves no secret in a log line or a message after fuzzing', () => {
    const secrets = secretsSeen(world);
    expect(kindsNotSeen(secrets, [...WORLD_SECRET_KINDS, 'interaction token'])).toEqual([]);
    expect(messages.length).toBeGreaterThan(Math.min(1_000, TARGET / 2));
    expect(
      leaks(secrets, { logs: world.logs, 'Discord messages': messages, 'error messages': world.errors }),
    ).toEqual([]);
  });
});
