/** Pointers the music commands give when something is missing, and autocomplete choices. */
import type { APIApplicationCommandOptionChoice } from 'discord-api-types/v10';
import { linkButtonRow, type MusicMessage } from './music-components.js';
import { clip, fitEmbed, oneLine } from './music-text.js';

/** The member has no music account linked (or the link died): the link button, ephemeral. */
export function renderLinkNeeded(url: string, reason: string): MusicMessage {
  return {
    embeds: [
      fitEmbed({
        title: 'Link your music account first',
        description: [
          reason,
          '',
          'Open the button below, sign in to the music service and allow access, then run the command again.',
          'The link is yours alone, works once, and expires in 10 minutes.',
        ].join('\n'),
      }),
    ],
    components: [linkButtonRow(url, 'Link my music account')],
  };
}

/** Discord's limits for autocomplete: 25 choices, names and values of 1 to 100 characters. */
export const MAX_CHOICES = 25;
export const CHOICE_MAX = 100;

export interface ChoiceInput {
  name: string;
  value: string;
}

/** Choices that Discord accepts whatever the input: clipped, non-empty, at most 25, no repeated values. */
export function toChoices(items: readonly ChoiceInput[]): APIApplicationCommandOptionChoice<string>[] {
  const seen = new Set<string>();
  const choices: APIApplicationCommandOptionChoice<string>[] = [];
  for (const item of items) {
    const value = item.value;
    if (value === '' || value.length > CHOICE_MAX || seen.has(value)) continue;
    seen.add(value);
    choices.push({ name: clip(oneLine(item.name), CHOICE_MAX) || value, value });
    if (choices.length === MAX_CHOICES) break;
  }
  return choices;
}

/** `Name — detail`, within the 100 characters of a choice name, keeping the name first. */
export function choiceName(name: string, detail?: string | null): string {
  const main = oneLine(name) || 'Untitled';
  const extra = detail === undefined || detail === null ? '' : oneLine(detail);
  if (extra === '') return clip(main, CHOICE_MAX);
  const head = clip(main, 70);
  return clip(`${head} — ${extra}`, CHOICE_MAX);
}
