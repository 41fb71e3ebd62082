/**
 * The words of `/help`, in English and German. The commands' own names and descriptions come from
 * their registered data, in the member's locale where the command has one (see `render/help.ts`).
 * German must have every English key (the type says so).
 */
import type { Lang, Localized } from './index.js';

interface HelpWords {
  title: string;
  description: string;
  /** After a command's name in a field that goes on from the one before. */
  continued: string;
  /** After a command's name when its service is not configured on this bot. */
  switchedOff: string;
}

export const HELP_WORDS: Readonly<Record<Lang, HelpWords>> = {
  en: {
    title: 'What I can do',
    description: 'Type `/` in any channel to use a command. Replies only you can see are marked as such.',
    continued: ' (continued)',
    switchedOff: ' (switched off on this bot)',
  },
  de: {
    title: 'Was ich kann',
    description:
      'Tippe `/` in einem Kanal, um einen Befehl zu nutzen. Antworten, die nur du sehen kannst, sind als solche gekennzeichnet.',
    continued: ' (Fortsetzung)',
    switchedOff: ' (auf diesem Bot ausgeschaltet)',
  },
};

/** `/help`'s description; its name stays `help` in every language, the word members look for. */
export const HELP_DESCRIPTION: Localized = {
  en: 'List every command of this bot',
  de: 'Alle Befehle dieses Bots auflisten',
};
