/**
 * Localisation: the languages replies are written in, chosen from the interaction's locale, and the
 * helpers that give slash commands, options and choices their localised names and descriptions.
 * Catalogues live next to this file, one per command family (`weather.ts`, `schedules.ts`), and
 * the router's own words in `common.ts`.
 */
import type { LocalizationMap } from 'discord-api-types/v10';

/** Languages with a full catalogue. English is the fallback for every other Discord locale. */
export const LANGS = ['en', 'de'] as const;
export type Lang = (typeof LANGS)[number];

/** A text in every language of {@link LANGS}. */
export type Localized = Readonly<Record<Lang, string>>;

/** The reply language for a Discord locale (`de`, `en-US`, `fr`...). */
export function langOf(locale: string | null | undefined): Lang {
  return locale?.toLowerCase().startsWith('de') ? 'de' : 'en';
}

/** The locale numbers and dates are formatted in: the user's own English variant, or German. */
export function formatLocaleOf(locale: string | null | undefined): string {
  if (langOf(locale) === 'de') return 'de-DE';
  return locale?.startsWith('en') ? locale : 'en-US';
}

/** Discord's localisation map for a text: every language but the default English. */
export function localizationMap(text: Localized): LocalizationMap {
  return { de: text.de };
}

export interface CommandText {
  name: Localized;
  description: Localized;
}

/**
 * The description of a command only members with Manage Server may use, saying so in each language
 * (Discord's command picker shows nothing else about it; the command checks the permission itself).
 */
export function managersOnly(description: Localized): Localized {
  return {
    en: `${description.en} (needs Manage Server)`,
    de: `${description.de} (braucht „Server verwalten“)`,
  };
}

/** Anything with a localisable name and description: commands, groups, subcommands, options. */
interface Describable {
  setName(name: string): unknown;
  setDescription(description: string): unknown;
  setNameLocalizations(map: LocalizationMap | null): unknown;
  setDescriptionLocalizations(map: LocalizationMap | null): unknown;
}

/** Sets a builder's name and description in English with their localisations; returns the builder. */
export function localize<B extends Describable>(builder: B, text: CommandText): B {
  builder.setName(text.name.en);
  builder.setDescription(text.description.en);
  builder.setNameLocalizations(localizationMap(text.name));
  builder.setDescriptionLocalizations(localizationMap(text.description));
  return builder;
}

/** A choice of a string or number option, with its localised name. */
export function localizedChoice<V extends string | number>(
  name: Localized,
  value: V,
): { name: string; name_localizations: LocalizationMap; value: V } {
  return { name: name.en, name_localizations: localizationMap(name), value };
}
