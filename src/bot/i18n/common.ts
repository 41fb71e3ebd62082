/**
 * The router's own words, in English and German: what any member may read whatever the command (a
 * service switched off, a command or button the bot no longer knows, a service in trouble, an
 * error on the bot's side). German must have every English key (the type says so).
 */
import type { Feature } from '../types.js';
import type { Lang } from './index.js';

interface CommonMessages {
  featureOff(feature: Feature): string;
  unknownCommand: string;
  staleButton: string;
  invalidButton: string;
  commandChanged: string;
  internal(reference: string): string;
  tooManyRequests(service: string, waitMs: number | undefined): string;
  notAnswering(service: string): string;
  unreadable(service: string): string;
  /** Storage's lock on the same settings is held by another change (`LockBusyError`). */
  lockBusy: string;
  /** The stored schedules are in a form this version cannot read (`UnreadableStoreError`). */
  schedulesUnreadable: string;
}

const WAIT_WORDS: Record<
  Lang,
  { seconds(n: number): string; minutes(n: number): string; hours(n: number): string }
> = {
  en: {
    seconds: (n) => (n === 1 ? '1 second' : `${n} seconds`),
    minutes: (n) => `${n} minutes`,
    hours: (n) => `about ${n} hours`,
  },
  de: {
    seconds: (n) => (n === 1 ? '1 Sekunde' : `${n} Sekunden`),
    minutes: (n) => `${n} Minuten`,
    hours: (n) => `etwa ${n} Stunden`,
  },
};

/**
 * A wait in words: seconds up to 90, minutes up to 90, then hours ("30 seconds", "etwa 2 Stunden").
 * Only seconds can be one: minutes start at 2, hours at 2.
 */
export function waitText(ms: number, lang: Lang): string {
  const words = WAIT_WORDS[lang];
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 90) return words.seconds(seconds);
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return words.minutes(minutes);
  return words.hours(Math.round(minutes / 60));
}

/**
 * Whether a wait is worth naming: `Retry-After: 0` is really sent (upstream-facts), and "in 0
 * seconds" reads as nonsense, so a wait under one second is told as no particular wait.
 */
const namesWait = (waitMs: number | undefined): waitMs is number => waitMs !== undefined && waitMs >= 1_000;

const en: CommonMessages = {
  featureOff: (feature) =>
    `The ${feature} commands are switched off on this bot: its owner has not configured the ${feature} ` +
    'service yet.',
  unknownCommand:
    'This command is not known to the bot any more. It may have been removed. Type / or run /help to see ' +
    'the current commands.',
  staleButton: 'This button no longer does anything. Run the command again.',
  lockBusy: 'Another change to the same settings is still being saved. Please try again in a moment.',
  schedulesUnreadable:
    'The scheduled posts are stored in a form this version of the bot cannot read (saved by a newer ' +
    'version, or damaged), so it leaves them as they are. Ask the bot’s owner to look at its log.',
  invalidButton: 'This button is not valid any more. Run the command again.',
  commandChanged:
    'This command has changed since Discord was last told about it. Try again in a minute; if it keeps ' +
    'happening, tell the bot’s owner (its commands need registering again).',
  internal: (reference) =>
    `Something went wrong on our side, sorry. It has been logged (reference \`${reference}\`). Please try ` +
    'again; if it keeps happening, tell the bot’s owner and quote the reference.',
  tooManyRequests: (service, waitMs) =>
    `The ${service} service is receiving too many requests right now. Please try again ` +
    `${namesWait(waitMs) ? `in ${waitText(waitMs, 'en')}` : 'in a little while'}.`,
  notAnswering: (service) =>
    `The ${service} service is not answering right now. Please try again in a minute.`,
  unreadable: (service) =>
    `The ${service} service sent an answer the bot could not read. Please try again in a minute; ` +
    'if it keeps happening, tell the bot’s owner.',
};

/** "der Musikdienst", "den Wetterdienst": the service's name in the case a sentence needs. */
const SERVICE_DE: Record<string, string> = { music: 'Musik', weather: 'Wetter' };
const serviceDe = (service: string) => (SERVICE_DE[service] ? `${SERVICE_DE[service]}dienst` : 'Dienst');

const de: CommonMessages = {
  featureOff: (feature) =>
    `Die ${SERVICE_DE[feature]}befehle sind auf diesem Bot abgeschaltet: Sein Betreiber hat den ` +
    `${serviceDe(feature)} noch nicht eingerichtet.`,
  unknownCommand:
    'Diesen Befehl kennt der Bot nicht mehr. Vielleicht wurde er entfernt. Tippe / oder führe /help aus, ' +
    'um die aktuellen Befehle zu sehen.',
  staleButton: 'Dieser Knopf tut nichts mehr. Führe den Befehl noch einmal aus.',
  lockBusy:
    'Eine andere Änderung an denselben Einstellungen wird gerade noch gespeichert. Bitte versuche es ' +
    'gleich noch einmal.',
  schedulesUnreadable:
    'Die geplanten Beiträge sind in einer Form gespeichert, die diese Version des Bots nicht lesen kann ' +
    '(von einer neueren Version gespeichert oder beschädigt), deshalb lässt er sie, wie sie sind. Bitte ' +
    'den Betreiber des Bots, in sein Protokoll zu schauen.',
  invalidButton: 'Dieser Knopf gilt nicht mehr. Führe den Befehl noch einmal aus.',
  commandChanged:
    'Dieser Befehl hat sich geändert, seit Discord zuletzt davon erfahren hat. Versuche es in einer Minute ' +
    'noch einmal; wenn es immer wieder passiert, sag es dem Betreiber des Bots (seine Befehle müssen neu ' +
    'registriert werden).',
  internal: (reference) =>
    `Auf unserer Seite ist etwas schiefgegangen, tut uns leid. Es wurde protokolliert (Referenz \`${reference}\`). ` +
    'Bitte versuche es noch einmal; wenn es immer wieder passiert, sag es dem Betreiber des Bots und nenne ' +
    'ihm die Referenz.',
  tooManyRequests: (service, waitMs) =>
    `Der ${serviceDe(service)} bekommt gerade zu viele Anfragen. Bitte versuche es ` +
    `${namesWait(waitMs) ? `in ${waitText(waitMs, 'de')}` : 'in Kürze'} noch einmal.`,
  notAnswering: (service) =>
    `Der ${serviceDe(service)} antwortet gerade nicht. Bitte versuche es in einer Minute noch einmal.`,
  unreadable: (service) =>
    `Der ${serviceDe(service)} hat eine Antwort geschickt, die der Bot nicht lesen konnte. Bitte versuche ` +
    'es in einer Minute noch einmal; wenn es immer wieder passiert, sag es dem Betreiber des Bots.',
};

export function commonMessages(lang: Lang): CommonMessages {
  return lang === 'de' ? de : en;
}
