import type { EmbedBuilder } from '@discordjs/builders';
import { describe, expect, it } from 'vitest';
import { messagePayloadErrors, messagePayloadSchema } from '../../emulators/discord/validation.js';
import {
  dailyChart,
  historyChart,
  hourlyChart,
  localizeChartSpec,
} from '../../src/bot/render/weather-charts.js';
import {
  fit,
  renderAccumulated,
  renderCurrentWeather,
  renderDailyForecast,
  renderDayStatistics,
  renderHourlyForecast,
  renderWeatherHistory,
  weatherEmbed,
  type WeatherMessage,
} from '../../src/bot/render/weather.js';
import { weatherMessages } from '../../src/bot/i18n/weather.js';
import { currentWeatherSchema } from '../../src/services/weather/schemas.js';
import { dailyChartSpec, hourlyChartSpec, renderChartSvg } from '../../src/bot/render/charts.js';
import { weatherFormat } from '../../src/bot/render/weather-format.js';
import { placeClock } from '../../src/domain/weather/zones.js';
import {
  accumulatedReportFixture,
  currentReportFixture,
  dayStatisticsFixture,
  dailyReportFixture,
  historyReportFixture,
  hourlyReportFixture,
  hugeLabel,
  statisticsReportFixture,
} from '../fixtures/weather-render.js';

const US = { units: 'imperial', locale: 'en-US', siteUrl: 'https://weather.example' } as const;
const DE = { units: 'metric', locale: 'de', siteUrl: 'https://weather.example' } as const;

/** What the Discord emulator checks (and Discord refuses with 400 / 50035). */
function expectSendable(embeds: readonly EmbedBuilder[]): void {
  // Through JSON, as discord.js sends it (undefined properties vanish).
  const json: unknown = JSON.parse(JSON.stringify({ embeds: embeds.map((embed) => embed.toJSON()) }));
  const payload = messagePayloadSchema.parse(json);
  expect(messagePayloadErrors(payload)).toEqual([]);
}

function fields(embed: EmbedBuilder | undefined): Record<string, string> {
  return Object.fromEntries((embed?.data.fields ?? []).map((field) => [field.name, field.value]));
}

function pngSize(data: Buffer): { width: number; height: number } {
  expect(data.subarray(1, 4).toString('ascii')).toBe('PNG');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

/** Every value carries a unit (or is a word or a time that needs none). */
const WITH_UNIT =
  /(°F|°C|K|mph|m\/s|%|hPa|inHg|km|mi|mm|in|UTC[+−]\d+(:\d\d)?\)|\d\d:\d\d)$|^(calm|windstill|—)$/;

describe('renderCurrentWeather', () => {
  it('converts to Fahrenheit, mph, miles, inches and inches of mercury for imperial, with every value in its unit', () => {
    const embed = renderCurrentWeather(currentReportFixture(), US);
    const values = fields(embed);
    expect(values['Temperature']).toBe('44.9\u00a0°F');
    expect(values['Feels like']).toBe('40.6\u00a0°F');
    expect(values['Wind']).toBe('9.2\u00a0mph E, gusts 13.9\u00a0mph');
    expect(values['Visibility']).toBe('5\u00a0mi');
    expect(values['Pressure']).toBe('29.88\u00a0inHg');
    // To the hundredth always, as barometers read: 1009.1 hPa is 29.80 inHg, not 29.8.
    const even = currentReportFixture();
    even.weather.main.pressure = 1009.1;
    expect(fields(renderCurrentWeather(even, US))['Pressure']).toBe('29.80\u00a0inHg');
    expect(values['Humidity']).toBe('81%');
    expect(values['Precipitation, last hour']).toBe('0\u00a0in');
    expect(values['As of (local time)']).toBe('Mon 17:00 (UTC+1)');
    for (const value of Object.values(values)) expect(value).toMatch(WITH_UNIT);
    expect(embed.data.thumbnail?.url).toBe('https://weather.example/img/wn/04d@2x.png');
    expect(embed.data.description).toBe('☁️ **Broken clouds**');
  });

  it('shows no gusts and a dash for visibility when the service sends neither, as it often does not', () => {
    const report = currentReportFixture();
    const { visibility: _, ...weather } = report.weather;
    const embed = renderCurrentWeather(
      { ...report, weather: { ...weather, wind: { speed: 4.1, deg: 80 } } },
      US,
    );
    const values = fields(embed);
    expect(values['Wind']).toBe('9.2\u00a0mph E');
    expect(values['Visibility']).toBe('—');
    expectSendable([embed]);
  });

  it('reads rain and snow sent as null or as an empty object as nothing fallen', () => {
    // Real answers have carried `"rain":{}` (with light rain described) and `"snow":null`.
    const { weather } = currentReportFixture();
    const raw = { ...weather, rain: {}, snow: null };
    const report = {
      ...currentReportFixture(),
      weather: { ...currentWeatherSchema.parse(raw), dt: weather.dt },
    };
    const values = fields(renderCurrentWeather(report, US));
    expect(values['Precipitation, last hour']).toBe('0\u00a0in');
  });

  it('says no "0 mm" under a rain, snow or storm condition the service gave no amount for', () => {
    const rain = { id: 500, main: 'Rain', description: 'light rain', icon: '10d' };
    const values = fields(renderCurrentWeather(currentReportFixture({ condition: rain }), US));
    expect(Object.keys(values).filter((name) => /precipitation|rain|snow/i.test(name))).toEqual([]);
    const drizzle = { id: 300, main: 'Drizzle', description: 'light drizzle', icon: '09d' };
    expect(
      fields(renderCurrentWeather(currentReportFixture({ condition: drizzle, rain: 0.2 }), US)),
    ).toMatchObject({ 'Rain, last hour': '0.01\u00a0in' });
  });

  it('shows a trace of rain as less than the least amount shown, not as nothing', () => {
    const drizzle = { id: 300, main: 'Drizzle', description: 'light drizzle', icon: '09d' };
    const rain = (amount: number, options: typeof US | typeof DE) =>
      Object.entries(
        fields(renderCurrentWeather(currentReportFixture({ condition: drizzle, rain: amount }), options)),
      ).find(([name]) => /rain|regen/i.test(name))?.[1];
    expect(rain(0.1, US)).toBe('<\u00a00.01\u00a0in');
    expect(rain(0.03, DE)).toBe('<\u00a00,1\u00a0mm');
    expect(rain(0.2, US)).toBe('0.01\u00a0in');
  });

  it('names the schedule in the footer of a scheduled post, in the schedule’s language', () => {
    expect(renderCurrentWeather(currentReportFixture(), US).data.footer?.text).toBe(
      'Units: imperial · change them with /weather units',
    );
    expect(
      renderCurrentWeather(currentReportFixture(), { ...DE, scheduleId: 'f790b7d0' }).data.footer?.text,
    ).toBe('Geplanter Post f790b7d0 · Einheiten: metrisch');
  });

  it('writes German labels, decimal commas and German compass points', () => {
    const values = fields(renderCurrentWeather(currentReportFixture({ rain: 1.25 }), DE));
    expect(values['Temperatur']).toBe('7,2\u00a0°C');
    expect(values['Wind']).toBe('4,1\u00a0m/s O, Böen 6,2\u00a0m/s');
    expect(values['Regen, letzte Stunde']).toBe('1,3\u00a0mm');
    expect(values['Sichtweite']).toBe('8\u00a0km');
    expect(values['Stand (Ortszeit)']).toBe('Mo 17:00 (UTC+1)');
  });

  it('shows Kelvin for standard units and snow of the last hour', () => {
    const values = fields(
      renderCurrentWeather(currentReportFixture({ snow: 0.6 }), { units: 'standard', locale: 'fr' }),
    );
    expect(values['Temperature']).toBe('280.3\u00a0K');
    expect(values['Snow, last hour']).toBe('0.6\u00a0mm');
  });

  it('shows an amount reported only for three hours as such, not as a dry last hour', () => {
    const report = currentReportFixture();
    report.weather.rain = { '3h': 2.5 };
    report.weather.snow = { '1h': 0.3, '3h': 0.8 };
    const values = fields(renderCurrentWeather(report, DE));
    expect(values['Regen, letzte 3 Stunden']).toBe('2,5\u00a0mm');
    expect(values['Schnee, letzte Stunde']).toBe('0,3\u00a0mm');
    expect(values['Niederschlag, letzte Stunde']).toBeUndefined();
    expect(values['Regen, letzte Stunde']).toBeUndefined();
  });

  it('leaves “feels like” out when the service does not give it, rather than repeat the temperature', () => {
    const report = currentReportFixture();
    delete report.weather.main.feels_like;
    const values = fields(renderCurrentWeather(report, US));
    expect(values['Temperature']).toBe('44.9\u00a0°F');
    expect(values['Feels like']).toBeUndefined();
  });

  it('leaves sunrise and sunset out in polar day or night, when the service gives no real day', () => {
    const sunTimes = (sunrise: number, sunset: number) => {
      const report = currentReportFixture();
      report.weather.sys = { country: 'SJ', sunrise, sunset };
      return fields(renderCurrentWeather(report, US))['Sunrise / sunset'];
    };
    const noon = currentReportFixture().weather.dt;
    expect(sunTimes(noon - 5 * 3600, noon + 4 * 3600)).toBe('12:00 / 21:00');
    expect(sunTimes(noon, noon)).toBeUndefined();
    expect(sunTimes(noon + 3600, noon)).toBeUndefined();
    expect(sunTimes(noon - 86_400, noon + 3600)).toBeUndefined();
  });

  it('gives sunrise and sunset on the far side of a clock change in the time then in force', () => {
    // Berlin, 29 March 2026: clocks go from UTC+1 to UTC+2 at 01:00 UTC. Asked at 01:20 local,
    // the service answers with +1 h; the sun rises at 04:53 UTC, 06:53 by the clocks that morning.
    const report = currentReportFixture({ place: { lat: 52.52, lon: 13.39 } });
    report.weather.dt = Date.UTC(2026, 2, 29, 0, 20) / 1000;
    report.weather.timezone = 3600;
    report.weather.sys = {
      country: 'DE',
      sunrise: Date.UTC(2026, 2, 29, 4, 53) / 1000,
      sunset: Date.UTC(2026, 2, 29, 17, 38) / 1000,
    };
    const values = fields(renderCurrentWeather(report, DE));
    expect(values['Sonnenaufgang / -untergang']).toBe('06:53 / 19:38');
    expect(values['Stand (Ortszeit)']).toMatch(/01:20 \(UTC\+1\)$/);
  });

  it('reads the time at the place from its coordinates when an answer gives no timezone', () => {
    // The contract's field list for current weather has no `timezone` (the real service sends it):
    // Berlin in July is UTC+2, not UTC.
    const report = currentReportFixture({ place: { lat: 52.52, lon: 13.39 } });
    report.weather.dt = Date.UTC(2026, 6, 1, 10, 17) / 1000;
    delete report.weather.timezone;
    report.weather.sys = {
      country: 'DE',
      sunrise: Date.UTC(2026, 6, 1, 2, 46) / 1000,
      sunset: Date.UTC(2026, 6, 1, 19, 33) / 1000,
    };
    const values = fields(renderCurrentWeather(report, DE));
    expect(values['Stand (Ortszeit)']).toMatch(/12:17 \(UTC\+2\)$/);
    expect(values['Sonnenaufgang / -untergang']).toBe('04:46 / 21:33');
  });

  it('fits Discord’s limits with a huge place name and description', () => {
    const embed = renderCurrentWeather(
      currentReportFixture({
        place: { label: hugeLabel(5_000) },
        condition: { description: 'x'.repeat(10_000) },
      }),
      US,
    );
    expectSendable([embed]);
    expect(embed.data.title?.length).toBeLessThanOrEqual(256);
  });

  it('leaves the thumbnail out for an icon that is not an icon id', () => {
    const embed = renderCurrentWeather(currentReportFixture({ condition: { icon: '../../evil' } }), US);
    expect(embed.data.thumbnail).toBeUndefined();
  });
});

describe('renderHourlyForecast', () => {
  it('summarises 96 hours within Discord’s limits and attaches an 800x400 chart', () => {
    const message = renderHourlyForecast(hourlyReportFixture({ hours: 96 }), US);
    expectSendable(message.embeds);
    const embed = message.embeds[0]!;
    expect(embed.data.title).toBe('Berlin, Berlin, DE: next 96 hours');
    // Read in inches too ("0 in in total" would not).
    expect(embed.data.description).toMatch(/; total precipitation [\d.]+\u00a0in\.$/);
    expect(embed.data.image?.url).toBe('attachment://hourly.png');
    expect(fields(embed)['Day by day']?.split('\n').length).toBeLessThanOrEqual(5);
    expect(message.files).toHaveLength(1);
    expect(message.files[0]?.name).toBe('hourly.png');
    expect(pngSize(message.files[0]!.attachment)).toEqual({ width: 800, height: 400 });
  });

  it('stays within the limits with more hours than asked, a huge name and endless descriptions', () => {
    const message = renderHourlyForecast(
      hourlyReportFixture({ hours: 200, place: { label: hugeLabel(400) }, description: 'd'.repeat(2_000) }),
      DE,
    );
    expectSendable(message.embeds);
    expect(message.embeds[0]?.data.title).toMatch(/: die nächsten 96 Stunden$|…$/);
  });

  it('reads 3-hour steps of the 5-day forecast as three hours each, with their 3-hour amounts, and says so', () => {
    const hourly = hourlyReportFixture({ hours: 8 });
    const steps = hourly.forecast.list.map((entry, i) => ({
      ...entry,
      dt: hourly.forecast.list[0]!.dt + i * 3 * 3600,
      rain: i < 2 ? { '3h': 1.25 } : undefined,
    }));
    const message = renderHourlyForecast(
      { ...hourly, forecast: { ...hourly.forecast, list: steps }, fromThreeHourly: true },
      DE,
    );
    const embed = message.embeds[0]!;
    expect(embed.data.title).toBe('Berlin, Berlin, DE: die nächsten 24 Stunden');
    expect(embed.data.description).toContain('insgesamt 2,5\u00a0mm');
    expect(embed.data.description).toContain(
      '*In 3-Stunden-Schritten aus der 5-Tage-Vorhersage: Der Wettertarif dieses Bots enthält keine stündliche Vorhersage.*',
    );
  });

  it('draws nothing for an empty forecast', () => {
    const message = renderHourlyForecast(hourlyReportFixture({ hours: 0 }), US);
    expect(message.files).toEqual([]);
    expectSendable(message.embeds);
  });
});

describe('renderDailyForecast', () => {
  it('calls a forecast of one day today’s', () => {
    expect(renderDailyForecast(dailyReportFixture({ days: 1 }), US).embeds[0]?.data.title).toBe(
      'Berlin, Berlin, DE: today',
    );
    expect(renderDailyForecast(dailyReportFixture({ days: 1 }), DE).embeds[0]?.data.title).toBe(
      'Berlin, Berlin, DE: heute',
    );
    expect(renderDailyForecast(dailyReportFixture({ days: 2 }), US).embeds[0]?.data.title).toBe(
      'Berlin, Berlin, DE: next 2 days',
    );
  });

  it('gives each of 16 days a field with low, high, day, night and precipitation, within the limits', () => {
    const message: WeatherMessage = renderDailyForecast(dailyReportFixture({ days: 16 }), US);
    expectSendable(message.embeds);
    const embed = message.embeds[0]!;
    expect(embed.data.fields).toHaveLength(16);
    expect(embed.data.fields?.[1]?.value).toBe(
      [
        '☁️ Overcast clouds',
        '↑ 54\u00a0°F · ↓ 27\u00a0°F',
        'Day 44\u00a0°F · Night 32\u00a0°F',
        '💧 0.06\u00a0in · 30%',
      ].join('\n'),
    );
    expect(pngSize(message.files[0]!.attachment)).toEqual({ width: 800, height: 400 });
  });

  it('shows at most 16 days whatever it is given, with huge texts', () => {
    const message = renderDailyForecast(
      dailyReportFixture({ days: 40, place: { label: hugeLabel(300) }, description: 'z'.repeat(5_000) }),
      DE,
    );
    expect(message.embeds[0]?.data.fields).toHaveLength(16);
    expectSendable(message.embeds);
  });
});

describe('forecasts across a daylight-saving change', () => {
  const HOUR = 3600;
  const GB = { units: 'metric', locale: 'en-GB' } as const;
  const unix = (month: number, day: number, hour: number) => Date.UTC(2026, month - 1, day, hour) / 1000;

  /**
   * 48 hours in Berlin from Saturday 24 October 2026, 14:00 CEST, asked then (UTC+2). The clocks go
   * back at 01:00 UTC on Sunday, which has 25 hours: 10 °C all Saturday, 15 °C all Sunday, 20 °C on
   * Monday.
   */
  function berlinAutumnHours() {
    const start = unix(10, 24, 12);
    const fixture = hourlyReportFixture({ hours: 48 });
    const list = fixture.forecast.list.map((entry, i) => {
      const day = i < 10 ? 0 : i < 35 ? 1 : 2;
      return { ...entry, dt: start + i * HOUR, main: { ...entry.main, temp: 283.15 + 5 * day } };
    });
    return {
      ...fixture,
      ...placeClock(2 * HOUR, start, 'DE'),
      forecast: { ...fixture.forecast, list },
    };
  }

  it('groups hours into the local days they fall in after the clocks go back', () => {
    const byDay = fields(renderHourlyForecast(berlinAutumnHours(), GB).embeds[0])['Day by day'];
    const lines = byDay?.split('\n') ?? [];
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\*\*Sat 24 Oct\*\* \S+ 10\s°C – 10\s°C · /);
    expect(lines[1]).toMatch(/^\*\*Sun 25 Oct\*\* \S+ 15\s°C – 15\s°C · /);
    expect(lines[2]).toMatch(/^\*\*Mon 26 Oct\*\* \S+ 20\s°C – 20\s°C · /);
  });

  it('labels the hours after the change an hour earlier, the repeated 02:00 twice', () => {
    const spec = hourlyChart(berlinAutumnHours(), 'Berlin', weatherFormat(GB));
    const labels = spec.x.labels;
    expect(labels.slice(11, 15)).toEqual(['Sun 01:00', 'Sun 02:00', 'Sun 02:00', 'Sun 03:00']);
    expect(labels.slice(33, 36)).toEqual(['Sun 22:00', 'Sun 23:00', 'Mon 00:00']);
    expect(labels.at(-1)).toBe('Mon 12:00');
  });

  it('dates each day of a daily forecast by its own offset after the clocks go forward', () => {
    // Days dated at local midnight from Friday 27 March 2026, asked then (UTC+1); from Monday on,
    // midnight is 22:00 UTC.
    const fixture = dailyReportFixture({ days: 6 });
    const midnights = [
      unix(3, 26, 23),
      unix(3, 27, 23),
      unix(3, 28, 23),
      unix(3, 29, 22),
      unix(3, 30, 22),
      unix(3, 31, 22),
    ];
    const report = {
      ...fixture,
      ...placeClock(HOUR, unix(3, 27, 9), 'DE'),
      forecast: {
        ...fixture.forecast,
        list: fixture.forecast.list.map((day, i) => ({ ...day, dt: midnights[i] ?? day.dt })),
      },
    };
    const message = renderDailyForecast(report, US);
    expect(message.embeds[0]?.data.fields?.map((field) => field.name)).toEqual([
      'Fri, Mar 27',
      'Sat, Mar 28',
      'Sun, Mar 29',
      'Mon, Mar 30',
      'Tue, Mar 31',
      'Wed, Apr 1',
    ]);
    const spec = dailyChart(report, 'Berlin', weatherFormat(US));
    expect(spec.x.labels.slice(2, 4)).toEqual(['Sun 29', 'Mon 30']);
  });

  it('shows the same as with one offset when no change falls in the forecast', () => {
    const fixture = hourlyReportFixture({ hours: 96 });
    const clocked = { ...fixture, ...placeClock(HOUR, fixture.forecast.list[0]!.dt, 'DE') };
    expect(clocked.zones).toContain('Europe/Berlin');
    const plain = renderHourlyForecast(fixture, US);
    const zoned = renderHourlyForecast(clocked, US);
    expect(zoned.embeds[0]?.toJSON()).toEqual(plain.embeds[0]?.toJSON());
    expect(zoned.files[0]?.attachment.equals(plain.files[0]!.attachment)).toBe(true);
    const days = dailyReportFixture({ days: 16 });
    const zonedDays = { ...days, ...placeClock(HOUR, days.forecast.list[0]!.dt, 'DE') };
    expect(renderDailyForecast(zonedDays, US).embeds[0]?.toJSON()).toEqual(
      renderDailyForecast(days, US).embeds[0]?.toJSON(),
    );
  });
});

describe('renderWeatherHistory', () => {
  it('speaks of one hour in the singular', () => {
    expect(renderWeatherHistory(historyReportFixture({ hours: 1 }), US).embeds[0]?.data.title).toBe(
      'Berlin, Berlin, DE: 1 hour of history',
    );
    expect(renderWeatherHistory(historyReportFixture({ hours: 1 }), DE).embeds[0]?.data.title).toBe(
      'Berlin, Berlin, DE: 1 Stunde Verlauf',
    );
  });

  it('says there is no history, rather than "0 hours of history", when the service has no records', () => {
    const empty = historyReportFixture({ hours: 0 });
    // The range asked for, which the fixture derives from the hours, stays a day.
    empty.range = historyReportFixture({ hours: 24 }).range;
    const english = renderWeatherHistory(empty, US);
    expect(english.embeds[0]?.data.title).toBe('No history for Berlin, Berlin, DE');
    expect(english.embeds[0]?.data.description).toMatch(
      /^From .+ to .+, local time\.\nThe weather service has no records for these hours\.$/,
    );
    expect(english.files).toEqual([]);
    expect(renderWeatherHistory(empty, DE).embeds[0]?.data.title).toBe('Kein Verlauf für Berlin, Berlin, DE');
  });

  it('summarises a week of hours with a chart, within the limits', () => {
    const message = renderWeatherHistory(historyReportFixture({ hours: 168 }), US);
    expectSendable(message.embeds);
    const values = fields(message.embeds[0]);
    expect(values['Precipitation, total']).toBe('1.1\u00a0in');
    expect(values['Conditions']).toBe('Clouds: 112 h\nRain: 56 h');
    expect(
      fields(
        renderWeatherHistory(historyReportFixture({ hours: 168 }), { units: 'metric', locale: 'en-GB' })
          .embeds[0],
      )['Precipitation, total'],
    ).toBe('28\u00a0mm');
    expect(message.files[0]?.name).toBe('history.png');
  });

  it('counts rain reported only for three hours once: neither as nothing nor twice', () => {
    // Six hours from a station that sends three-hour sums only: 1 mm in each of the last three hours.
    const onlyThreeHours = historyReportFixture({ hours: 6 });
    onlyThreeHours.history.list.forEach((entry, i) => {
      entry.rain = { '3h': Math.max(0, i - 2) };
    });
    // Six hours where it rained 2 mm an hour for two hours, then stopped: the dry hours after carry
    // only the three-hour sum, which holds the wet hours already listed.
    const dryAfterWet = historyReportFixture({ hours: 6 });
    const amounts: Array<{ '1h'?: number; '3h'?: number } | undefined> = [
      undefined,
      { '1h': 2, '3h': 2 },
      { '1h': 2, '3h': 4 },
      { '3h': 4 },
      { '3h': 2 },
      undefined,
    ];
    dryAfterWet.history.list.forEach((entry, i) => {
      const rain = amounts[i];
      if (rain) entry.rain = rain;
      else delete entry.rain;
    });

    const total = (report: ReturnType<typeof historyReportFixture>) =>
      fields(renderWeatherHistory(report, DE).embeds[0])['Niederschlag, gesamt'];
    const bars = (report: ReturnType<typeof historyReportFixture>) =>
      historyChart(report, 'Berlin', weatherFormat(DE)).series.find((series) => series.kind === 'bar')
        ?.values;
    expect(total(onlyThreeHours)).toBe('3\u00a0mm');
    expect(bars(onlyThreeHours)).toEqual([0, 0, 0, 1, 1, 1]);
    expect(total(dryAfterWet)).toBe('4\u00a0mm');
    expect(bars(dryAfterWet)).toEqual([0, 2, 2, 0, 0, 0]);
  });

  it('shares a three-hour sum with the hours before it that the history does not hold', () => {
    const report = historyReportFixture({ hours: 2 });
    report.history.list[0]!.rain = { '3h': 3 };
    report.history.list[1]!.rain = { '3h': 4 };
    // The first hour's two predecessors are outside the range: a third of 3 mm is its share. The
    // second hour's 4 mm covers the first (1 mm) and one hour outside: 3 mm left for two hours.
    expect(
      historyChart(report, 'Berlin', weatherFormat(DE)).series.find((s) => s.kind === 'bar')?.values,
    ).toEqual([1, 1.5]);
  });

  it('draws precipitation in inches for imperial and in mm otherwise, on an axis that says which', () => {
    const report = historyReportFixture({ hours: 2 });
    report.history.list[0]!.rain = { '1h': 25.4 };
    report.history.list[1]!.rain = { '1h': 12.7 };
    const bars = (spec: ReturnType<typeof historyChart>) => ({
      values: spec.series.find((s) => s.kind === 'bar')?.values,
      axis: spec.yAxes.right?.unit,
    });
    expect(bars(historyChart(report, 'Berlin', weatherFormat(US)))).toEqual({ values: [1, 0.5], axis: 'in' });
    expect(bars(historyChart(report, 'Berlin', weatherFormat(DE)))).toEqual({
      values: [25.4, 12.7],
      axis: 'mm',
    });
    const days = dailyReportFixture({ days: 2 });
    days.forecast.list[0]!.rain = 50.8;
    days.forecast.list[0]!.snow = undefined;
    const daily = dailyChart(days, 'Berlin', weatherFormat(US));
    expect(daily.series.find((s) => s.kind === 'bar')?.values[0]).toBe(2);
    expect(daily.yAxes.right?.unit).toBe('in');
  });

  it('names the condition groups in German', () => {
    const values = fields(renderWeatherHistory(historyReportFixture({ hours: 6 }), DE).embeds[0]);
    expect(values['Wetterlage']).toBe('Wolken: 4 Std.\nRegen: 2 Std.');
  });

  it('says so when the service has no records', () => {
    const report = historyReportFixture({ hours: 0 });
    const message = renderWeatherHistory(report, US);
    expect(message.embeds[0]?.data.description).toContain('no records');
    expect(message.files).toEqual([]);
  });
});

describe('renderDayStatistics', () => {
  it('converts the Kelvin statistics to the member’s units, spreads without the offset', () => {
    const embed = renderDayStatistics(statisticsReportFixture(), US);
    const values = fields(embed);
    expect(embed.data.title).toBe('Berlin, Berlin, DE: the climate on July 20');
    expect(values['Records']).toBe('lowest 44.6\u00a0°F, highest 95\u00a0°F');
    expect(values['Standard deviation']).toBe('±\u00a06.3\u00a0°F');
    expect(values['Middle half (25th–75th percentile)']).toBe('60.8\u00a0°F – 71.6\u00a0°F');
    expect(values['Wind']).toBe('mean 7.6\u00a0mph, at most 30\u00a0mph');
    expectSendable([embed]);
  });

  it('leaves out a quantity the service left out for the day, and shows the rest', () => {
    const statistics = { ...dayStatisticsFixture(), clouds: undefined, wind: undefined };
    const values = fields(renderDayStatistics(statisticsReportFixture({ statistics }), US));
    expect(values['Clouds']).toBeUndefined();
    expect(values['Wind']).toBeUndefined();
    expect(values['Records']).toBe('lowest 44.6\u00a0°F, highest 95\u00a0°F');
    expect(values['Humidity']).toBeDefined();
  });

  it('counts one measurement in the singular', () => {
    const statistics = dayStatisticsFixture();
    const one = { ...statistics, temp: { ...statistics.temp, num: 1 } };
    expect(renderDayStatistics(statisticsReportFixture({ statistics: one }), US).data.description).toMatch(
      /\(1 measurement\)\.$/,
    );
    expect(renderDayStatistics(statisticsReportFixture({ statistics: one }), DE).data.description).toMatch(
      /\(1 Messung\)\.$/,
    );
    expect(renderDayStatistics(statisticsReportFixture(), US).data.description).toMatch(
      /\(80 measurements\)\.$/,
    );
  });

  it('says so when the day has no statistics', () => {
    const embed = renderDayStatistics(statisticsReportFixture({ statistics: undefined }), DE);
    expect(embed.data.description).toBe('Der Wetterdienst hat für diesen Tag keine Statistik.');
  });

  it('says which days to ask for instead when 29 February has no statistics', () => {
    const report = { ...statisticsReportFixture({ statistics: undefined }), month: 2, day: 29 };
    const description = renderDayStatistics(report, US).data.description;
    expect(description).toContain('29 February is not one of them');
    expect(description).toContain('28 February or 1 March');
  });
});

describe('renderAccumulated', () => {
  it('turns the service’s Kelvin sums into degree-days above the threshold, in the member’s units', () => {
    const metric = fields(
      renderAccumulated(accumulatedReportFixture(), { units: 'metric', locale: 'en-GB' }),
    );
    expect(metric['Warmth above 10\u00a0°C']).toBe(
      '150\u00a0°C·d over 30 days above the threshold (their mean 15\u00a0°C)',
    );
    expect(metric['Precipitation']).toBe('60\u00a0mm over 30 days');
    const imperial = fields(renderAccumulated(accumulatedReportFixture(), US));
    expect(imperial['Warmth above 50\u00a0°F']).toMatch(/^270\s°F·d over 30 days/);
  });

  it('says how many days of the period the service has counted when it has not counted them all', () => {
    const report = accumulatedReportFixture({ days: 3 });
    // Today is not over: the service sums the days before it.
    const sofar = {
      ...report,
      precipitation: report.precipitation.slice(0, 2),
      temperature: report.temperature.slice(0, 2),
    };
    expect(fields(renderAccumulated(sofar, US))['Period']).toMatch(/\(3 days, 2 of them counted so far\)$/);
    expect(fields(renderAccumulated(sofar, DE))['Zeitraum']).toMatch(/\(3 Tage, davon bisher 2 erfasst\)$/);
    expect(fields(renderAccumulated(report, US))['Period']).toMatch(/\(3 days\)$/);
  });

  it('speaks of one day in the singular', () => {
    const one = accumulatedReportFixture({ days: 1 });
    const metric = fields(renderAccumulated(one, { units: 'metric', locale: 'en-GB' }));
    expect(metric['Period']).toMatch(/\(1 day\)$/);
    expect(metric['Warmth above 10\u00a0°C']).toBe(
      '5\u00a0°C·d on 1 day above the threshold (its mean 15\u00a0°C)',
    );
    expect(metric['Precipitation']).toBe('2\u00a0mm over 1 day');
    const german = fields(renderAccumulated(one, DE));
    expect(german['Zeitraum']).toMatch(/\(1 Tag\)$/);
    expect(german['Wärmesumme über 10\u00a0°C']).toBe(
      '5\u00a0°C·d an 1 Tag über der Schwelle (Tagesmittel 15\u00a0°C)',
    );
    // The sum over the period's days: not "an 1 Tag" (the days it rained), "über 1 Tag" (more
    // than a day) nor "0,08 in in 1 Tag" in inches.
    expect(german['Niederschlag']).toBe('2\u00a0mm innerhalb von 1 Tag');
    expect(fields(renderAccumulated(one, { ...DE, units: 'imperial' }))['Niederschlag']).toBe(
      '0,08\u00a0in innerhalb von 1 Tag',
    );
  });

  it('explains the meaning in one line', () => {
    const embed = renderAccumulated(accumulatedReportFixture(), DE);
    expect(embed.data.description?.split('\n')).toHaveLength(1);
    expect(embed.data.description).toContain('Wachstumsgradtage');
  });
});

describe('weatherEmbed', () => {
  it('keeps the total under 6,000 characters, giving way in the description', () => {
    const embed = weatherEmbed({
      title: 't'.repeat(1_000),
      description: 'd'.repeat(10_000),
      fields: Array.from({ length: 30 }, (_, i) => ({ name: `n${i}`, value: 'v'.repeat(1_024) })),
      footer: 'f'.repeat(3_000),
    });
    expectSendable([embed]);
  });

  it('never splits a character when it cuts', () => {
    expect(fit('🌧🌧🌧', 4)).toBe('🌧…');
    expect(fit('short', 10)).toBe('short');
  });
});

describe('visibility', () => {
  const NBSP = '\u00a0';
  const shown = (metres: number, options: typeof US | typeof DE) =>
    weatherFormat(options).visibility(metres).replaceAll(NBSP, ' ');

  it('says the service’s 10 km is that or more, in kilometres and in miles', () => {
    expect(shown(10_000, DE)).toBe('≥ 10 km');
    expect(shown(10_000, US)).toBe('≥ 6.2 mi');
    expect(shown(8_000, DE)).toBe('8 km');
  });

  it('gives fog in metres, or as under a tenth of a mile, never as nothing', () => {
    expect(shown(40, DE)).toBe('40 m');
    expect(shown(3, DE)).toBe('< 10 m');
    expect(shown(997, DE)).toBe('1 km');
    expect(shown(450, DE)).toBe('450 m');
    expect(shown(1_500, DE)).toBe('1,5 km');
    expect(shown(60, US)).toBe('< 0.1 mi');
    expect(shown(0, US)).toBe('0 mi');
  });
});

describe('localizeChartSpec', () => {
  it('leaves no English word of the chart builders in a German chart', () => {
    const t = weatherMessages('de');
    const english = Object.values(weatherMessages('en').chart);
    const specs = [
      hourlyChartSpec({ place: 'X', hours: [{ label: '1', temp: 1, pop: 0.1 }], tempUnit: '°C' }),
      dailyChartSpec({ place: 'X', days: [{ label: '1', min: 1, max: 2, precipMm: 0 }], tempUnit: '°C' }),
    ];
    for (const spec of specs) {
      const localized = localizeChartSpec(spec, { t, lang: 'de' });
      const words = [
        localized.x.name,
        localized.band?.name,
        localized.yAxes.left.name,
        localized.yAxes.right?.name,
        ...localized.series.map((series) => series.name),
      ].filter((word): word is string => word !== undefined);
      for (const word of words) expect(english).not.toContain(word);
    }
  });

  it('writes the axis values of a German chart with a decimal comma, as the text beside it', () => {
    const days = [0.3, 0.5, 0.7].map((precipMm, index) => ({
      label: `${index + 1}`,
      min: 1,
      max: 2,
      precipMm,
    }));
    const spec = dailyChartSpec({ place: 'X', days, tempUnit: '°C' });
    const texts = (lang: 'de' | 'en') =>
      [
        ...renderChartSvg(localizeChartSpec(spec, { t: weatherMessages(lang), lang })).matchAll(
          /<text[^>]*>([^<]*)<\/text>/g,
        ),
      ]
        .map((match) => match[1] ?? '')
        .filter((text) => /^-?\d/.test(text));
    expect(texts('de').some((text) => /^\d,\d$/.test(text))).toBe(true);
    expect(texts('de').filter((text) => /\d\.\d/.test(text))).toEqual([]);
    expect(texts('en').some((text) => /^\d\.\d$/.test(text))).toBe(true);
  });
});
