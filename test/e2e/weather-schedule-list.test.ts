/** `/weather schedule list` on a server with more schedules than one embed holds: its pages. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePlace } from '../../src/domain/weather/places.js';
import { buttonId, startBotWorld, type BotWorld } from '../helpers/bot.js';
import type { EmulatedMessage } from '../../emulators/discord/index.js';

const SCHEDULES = 40;

describe('/weather schedule list, page by page', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true, env: { SCHEDULES_PER_GUILD: '60' } });
    for (let i = 0; i < SCHEDULES; i++) {
      // Long place names: about 16 schedules fill one embed.
      const label = `Place number ${String(i).padStart(2, '0')} ${'with a long name '.repeat(4)}`.trim();
      const saved = await world
        .slash('weather', {
          subcommandGroup: 'schedule',
          subcommand: 'add',
          options: { place: encodePlace({ lat: 10 + i, lon: 20, label }), time: '08:00', timezone: 'UTC' },
        })
        .reply();
      expect(saved.embeds[0]?.title).toBe('Scheduled weather post saved');
    }
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  const list = (userId = world.alice.id) =>
    world.slash('weather', { subcommandGroup: 'schedule', subcommand: 'list', userId }).reply();
  const click = (message: EmulatedMessage, label: string, userId = world.alice.id) =>
    world.discord.clickButton({
      guildId: world.guildId,
      channelId: world.channelId,
      userId,
      message,
      customId: buttonId(message, label),
    });
  const placesIn = (message: EmulatedMessage) =>
    [...(message.embeds[0]?.description ?? '').matchAll(/Place number (\d\d)/g)].map((m) => Number(m[1]));

  it('shows every schedule once over its pages, turned with Previous and Next', async () => {
    const first = await list();
    expect(first.flags! & 64).toBe(64);
    const pageCount = Number(/page 1 of (\d+)$/.exec(first.embeds[0]?.footer?.text ?? '')?.[1]);
    expect(pageCount).toBeGreaterThan(1);
    expect(first.embeds[0]?.footer?.text).toContain(`${SCHEDULES} of 60 allowed`);

    const seen = [...placesIn(first)];
    let page = first;
    for (let n = 2; n <= pageCount; n++) {
      page = await click(page, 'Next').waitForEdit();
      expect(page.embeds[0]?.footer?.text).toContain(`page ${n} of ${pageCount}`);
      expect(page.embeds[0]!.description!.length).toBeLessThanOrEqual(4096);
      seen.push(...placesIn(page));
    }
    expect(seen).toEqual(Array.from({ length: SCHEDULES }, (_, i) => i));
    // On the last page only Previous leads anywhere.
    const buttons = (page.components?.[0] as { components: { label: string; disabled?: boolean }[] })
      .components;
    expect(buttons.map((b) => [b.label, b.disabled ?? false])).toEqual([
      ['◀ Previous', false],
      ['Next ▶', true],
    ]);
    const back = await click(page, 'Previous').waitForEdit();
    expect(back.embeds[0]?.footer?.text).toContain(`page ${pageCount - 1} of ${pageCount}`);
  });

  it('refuses a page to a member without Manage Server who sends the button anyway', async () => {
    const shown = await list();
    const refused = await click(shown, 'Next', world.bob.id).reply();
    expect(refused.flags! & 64).toBe(64);
    // Bob's Discord is in German.
    expect(refused.content).toBe(
      'Zum Verwalten geplanter Posts brauchst du die Berechtigung „Server verwalten“.',
    );
    expect(refused.embeds ?? []).toEqual([]);
  });
});

describe('/weather schedule add at the per-server limit', () => {
  let world: BotWorld;
  beforeAll(async () => {
    world = await startBotWorld({ weather: true, env: { SCHEDULES_PER_GUILD: '1' } });
  });
  afterAll(async () => {
    await world?.close();
  });

  const add = (locale: 'de' | 'en-US', time = '08:00') =>
    world
      .slash('weather', {
        subcommandGroup: 'schedule',
        subcommand: 'add',
        options: {
          place: encodePlace({ lat: 52.52, lon: 13.4, label: 'Berlin' }),
          time,
          timezone: 'UTC',
        },
        locale,
      })
      .reply();

  let savedId: string | undefined;

  it('says the server is full, in the member’s language, with the count in words that fit it', async () => {
    const saved = await add('en-US');
    expect(saved.embeds[0]?.title).toBe('Scheduled weather post saved');
    savedId = /^`([0-9a-f]{8})`/.exec(saved.embeds[0]?.description ?? '')?.[1];
    expect((await add('en-US', '09:00')).content).toBe(
      'This server already has 1 scheduled post, the most allowed. Remove one first.',
    );
    expect((await add('de')).content).toBe(
      'Dieser Server hat schon einen geplanten Post, mehr sind nicht erlaubt. Entferne zuerst einen.',
    );
  });

  it('refuses the same post twice in a channel, naming the schedule that makes it', async () => {
    expect(savedId).toBeDefined();
    const again = await add('en-US');
    expect(again.flags! & 64).toBe(64);
    expect(again.content).toBe(
      `<#${world.channelId}> already gets this post: scheduled post \`${savedId}\` has the same place, time, days and kind. Nothing was added.`,
    );
    const list = await world.slash('weather', { subcommandGroup: 'schedule', subcommand: 'list' }).reply();
    expect(JSON.stringify(list.embeds).match(/`[0-9a-f]{8}`/g)).toEqual([`\`${savedId}\``]);
  });
});
