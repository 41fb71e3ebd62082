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
      ['add', 'Post the weather to a channel every day (or on chosen days) at a set time'],
      ['hinzufügen', 'Das Wetter täglich (oder an gewählten Tagen) zu einer festen Zeit posten'],
    ),
    list: text(
      ['list', 'List the scheduled weather posts of this server, with their next run'],
      ['liste', 'Die geplanten Wetterposts dieses Servers mit nächstem Termin anzeigen'],
    ),
    remove: text(
      ['remove', 'Delete a scheduled weather post'],
      ['entfernen', 'Einen geplanten Wetterpost löschen'],
    ),
    pause: text(
      ['pause', 'Stop a scheduled weather post for now'],
      ['pausieren', 'Einen geplanten Wetterpost pausieren'],
    ),
    resume: text(
      ['resume', 'Start a paused scheduled weather post again'],
      ['fortsetzen', 'Einen pausierten Wetterpost fortsetzen'],
    ),
    test: text(
      ['test', 'Post a scheduled weather post once, now, to check how it looks'],
      ['testen', 'Einen geplanten Wetterpost jetzt einmal posten, zur Ansicht'],
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
