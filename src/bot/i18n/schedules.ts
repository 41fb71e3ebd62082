/** Names and descriptions of `/weather schedule …` in every language of the bot. */
import { managersOnly, type CommandText, type Localized } from './index.js';

const text = (en: [string, string], de: [string, string]): CommandText => ({
  name: { en: en[0], de: de[0] },
  description: { en: en[1], de: de[1] },
});

/** A subcommand's text: every one of `/weather schedule` needs Manage Server (`requireManager`). */
const managerText = (en: [string, string], de: [string, string]): CommandText => {
  const plain = text(en, de);
  return { ...plain, description: managersOnly(plain.description) };
};

export const SCHEDULE_TEXT = {
  group: text(
    ['schedule', 'Weather posted to a channel at set times'],
    ['zeitplan', 'Wetter zu festen Zeiten in einem Kanal posten'],
  ),
  subcommands: {
    add: managerText(
      ['add', 'Post the weather to a channel daily or on chosen days at a set time'],
      ['hinzufügen', 'Wetter täglich oder an gewählten Tagen zu fester Zeit posten'],
    ),
    list: managerText(
      ['list', 'List this server’s scheduled weather posts and their next run'],
      ['liste', 'Geplante Wetterposts des Servers mit nächstem Termin anzeigen'],
    ),
    remove: managerText(
      ['remove', 'Delete a scheduled weather post'],
      ['entfernen', 'Einen geplanten Wetterpost löschen'],
    ),
    pause: managerText(
      ['pause', 'Stop a scheduled weather post for now'],
      ['pausieren', 'Einen geplanten Wetterpost pausieren'],
    ),
    resume: managerText(
      ['resume', 'Start a paused scheduled weather post again'],
      ['fortsetzen', 'Einen pausierten Wetterpost fortsetzen'],
    ),
    test: managerText(
      ['test', 'Post a scheduled weather post once, now, to see how it looks'],
      ['testen', 'Einen geplanten Wetterpost jetzt einmal posten'],
    ),
  },
  options: {
    time: text(
      ['time', 'Time of day, e.g. 07:00 or 7:30 pm'],
      ['uhrzeit', 'Uhrzeit, z. B. 07:00 oder 19:30'],
    ),
    timezone: text(
      ['timezone', 'Time zone, e.g. Europe/Berlin (default: the place’s own)'],
      ['zeitzone', 'Zeitzone, z. B. Europe/Berlin (Standard: die des Orts)'],
    ),
    channel: text(
      ['channel', 'Where to post (default: this channel)'],
      ['kanal', 'Wohin gepostet wird (Standard: dieser Kanal)'],
    ),
    kind: text(
      ['kind', 'What to post (default: today’s forecast)'],
      ['art', 'Was gepostet wird (Standard: Vorhersage für heute)'],
    ),
    units: text(
      ['units', 'Units (default: yours from /weather units, else from your Discord language)'],
      ['einheiten', 'Einheiten (Standard: deine aus /wetter einheiten, sonst nach deiner Discord-Sprache)'],
    ),
    days: text(
      ['days', 'Days of the week, e.g. mon,wed,fri or weekdays (default: every day)'],
      ['tage', 'Wochentage, z. B. mo,mi,fr oder mo-fr (Standard: jeden Tag)'],
    ),
    id: text(
      ['id', 'The schedule (see /weather schedule list)'],
      ['id', 'Der geplante Post (siehe /wetter zeitplan liste)'],
    ),
  },
  kinds: {
    current: { en: 'Current conditions', de: 'Aktuelles Wetter' },
    today: { en: "Today's forecast", de: 'Vorhersage für heute' },
    week: { en: 'The week ahead', de: 'Die kommende Woche' },
  } satisfies Record<string, Localized>,
  units: {
    metric: { en: 'Metric (°C, m/s, mm, hPa)', de: 'Metrisch (°C, m/s, mm, hPa)' },
    imperial: { en: 'Imperial (°F, mph, in, inHg)', de: 'Imperial (°F, mph, in, inHg)' },
    standard: { en: 'Standard (K, m/s, mm, hPa)', de: 'Standard (K, m/s, mm, hPa)' },
  } satisfies Record<string, Localized>,
};
