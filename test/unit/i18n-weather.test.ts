import type {
  APIApplicationCommandOption,
  LocalizationMap,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { commandErrors, commandSchema } from '../../emulators/discord/validation.js';
import { formatLocaleOf, langOf, LANGS } from '../../src/bot/i18n/index.js';
import { weatherMessages } from '../../src/bot/i18n/weather.js';
import weather from '../../src/commands/weather/index.js';

/** Discord's rule for command and option names, in every language. */
const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

interface Named {
  name: string;
  name_localizations?: LocalizationMap | null;
  description: string;
  description_localizations?: LocalizationMap | null;
  options?: readonly APIApplicationCommandOption[];
  choices?: readonly { name: string; name_localizations?: LocalizationMap | null }[];
}

/** Every command, group, subcommand and option of the command, with its path. */
function* walk(node: Named, path: string): Generator<{ node: Named; path: string }> {
  yield { node, path };
  for (const option of (node.options ?? []) as readonly Named[])
    yield* walk(option, `${path} ${option.name}`);
}

const json: RESTPostAPIChatInputApplicationCommandsJSONBody = weather.data.toJSON();

describe('weather command localisation', () => {
  it('is a valid command for Discord', () => {
    const parsed = commandSchema.parse(JSON.parse(JSON.stringify(json)));
    expect(commandErrors(parsed)).toEqual([]);
  });

  it('gives every command, group, subcommand, option and choice a German name and description within Discord’s rules', () => {
    for (const { node, path } of walk(json as Named, json.name)) {
      const german = node.name_localizations?.de;
      expect(german, `${path}: German name`).toBeDefined();
      expect(german, path).toMatch(NAME);
      expect(german, path).toBe(german?.toLowerCase());
      const description = node.description_localizations?.de;
      expect(description?.length, `${path}: German description`).toBeGreaterThan(0);
      expect(description!.length, path).toBeLessThanOrEqual(100);
      expect(node.description.length, path).toBeLessThanOrEqual(100);
      for (const choice of node.choices ?? []) {
        expect(choice.name_localizations?.de, `${path} choice ${choice.name}`).toBeDefined();
        expect(choice.name_localizations!.de!.length).toBeLessThanOrEqual(100);
      }
    }
  });

  it('says in both languages which subcommands need Manage Server, as Discord’s picker shows no more', () => {
    const needing = [...walk(json as Named, json.name)].filter(({ path }) =>
      /^weather (schedule \S+|home server(-clear)?)$/.test(path),
    );
    expect(needing.map(({ path }) => path).sort()).toEqual([
      'weather home server',
      'weather home server-clear',
      'weather schedule add',
      'weather schedule list',
      'weather schedule pause',
      'weather schedule remove',
      'weather schedule resume',
      'weather schedule test',
    ]);
    for (const { node, path } of needing) {
      expect(node.description, path).toMatch(/\(needs Manage Server\)$/);
      expect(node.description_localizations?.de, path).toMatch(/\(braucht „Server verwalten“\)$/);
    }
  });

  it('keeps German names distinct among siblings, as Discord requires', () => {
    for (const { node, path } of walk(json as Named, json.name)) {
      const names = (node.options ?? []).map((option) => (option as Named).name_localizations?.de);
      expect(new Set(names).size, path).toBe(names.length);
    }
  });
});

describe('reply language', () => {
  it('answers German locales in German and every other locale in English', () => {
    expect(langOf('de')).toBe('de');
    expect(langOf('en-US')).toBe('en');
    expect(langOf('fr')).toBe('en');
    expect(langOf(undefined)).toBe('en');
    expect(formatLocaleOf('en-GB')).toBe('en-GB');
    expect(formatLocaleOf('de')).toBe('de-DE');
    expect(formatLocaleOf('ja')).toBe('en-US');
  });

  it('has a German text for every English one, and they differ but for shared words', () => {
    const en = weatherMessages('en');
    const de = weatherMessages('de');
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    const same = new Set(['wind', 'compass', 'unitNames', 'conditionGroups', 'chart', 'products']);
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      if (same.has(key)) continue;
      const english = en[key];
      const german = de[key];
      // A one-element list reads as its element in a template, and is a list where one is expected.
      const sample = (value: unknown) =>
        typeof value === 'function'
          ? String((value as (...args: unknown[]) => unknown)(['X'], ['Y'], ['Z'], ['W']))
          : value;
      expect(sample(german), key).not.toEqual(sample(english));
    }
    for (const lang of LANGS) {
      const t = weatherMessages(lang);
      expect(Object.keys(t.chart).sort()).toEqual(Object.keys(en.chart).sort());
      expect(Object.keys(t.products).sort()).toEqual(Object.keys(en.products).sort());
      expect(Object.keys(t.conditionGroups).sort()).toEqual(Object.keys(en.conditionGroups).sort());
      expect(t.compass).toHaveLength(16);
    }
  });

  it('writes a day that does not exist in words, and says so when the month was today’s', () => {
    expect(weatherMessages('en').noSuchCalendarDay(31, 4)).toBe('There is no 31 April.');
    expect(weatherMessages('de').noSuchCalendarDay(31, 4)).toBe('Den 31. April gibt es nicht.');
    expect(weatherMessages('en').dayNotInMonth(31, 11, 'month')).toBe(
      'November has no 31st: choose a month with `month`.',
    );
    expect(weatherMessages('en').dayNotInMonth(30, 2, 'month')).toBe(
      'February has no 30th: choose a month with `month`.',
    );
    expect(weatherMessages('de').dayNotInMonth(31, 11, 'monat')).toBe(
      'Der November hat keinen 31.: Wähle einen Monat mit `monat`.',
    );
  });
});
