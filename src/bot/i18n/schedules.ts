/** Names and descriptions of `/weather schedule …` in every language of the bot. */
import type { CommandText, Localized } from './index.js';

const text = (en: [string, string], de: [string, string]): CommandText => ({
  name: { en: en[0], de: de[0] },
  description: { en: en[1], de: de[1] },
});

export const SCHEDULE_TEXT = {
  group: text(
    ['schedule', 'Weather posted to a channel at set times'],
    ['zeitplan', 'Wetter zu festen Zeiten in einem Kanal posten'],
  ),
  subcommands: {
    add: text(
      ['add', 'Post the weather to a channel daily or on chosen days at a set time (needs Manage Server)'],
      [
        'hinzufügen',
        'Wetter täglich oder an gewählten Tagen zu fester Zeit posten (braucht „Server verwalten“)',
      ],
    ),
    list: text(
      ['list', 'List this server’s scheduled weather posts and their next run (needs Manage Server)'],
      ['liste', 'Geplante Wetterposts des Servers mit nächstem Termin anzeigen (braucht „Server verwalten“)'],
    ),
    remove: text(
      ['remove', 'Delete a scheduled weather post (needs Manage Server)'],
      ['entfernen', 'Einen geplanten Wetterpost löschen (braucht „Server verwalten“)'],
    ),
    pause: text(
      ['pause', 'Stop a scheduled weather post for now (needs Manage Server)'],
      ['pausieren', 'Einen geplanten Wetterpost pausieren (braucht „Server verwalten“)'],
    ),
    resume: text(
      ['resume', 'Start a paused scheduled weather post again (needs Manage Server)'],
      ['fortsetzen', 'Einen pausierten Wetterpost fortsetzen (braucht „Server verwalten“)'],
    ),
    test: text(
      ['test', 'Post a scheduled weather post once, now, to see how it looks (needs Manage Server)'],
      ['testen', 'Einen geplanten Wetterpost jetzt einmal posten (braucht „Server verwalten“)'],
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
