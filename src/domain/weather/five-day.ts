/**
 * A daily forecast made from the 5-day/3-hour one, for keys whose plan lacks the daily forecast
 * (the real service's free plan: current weather, the 5-day/3-hour forecast and geocoding). Days
 * are the place's own calendar days, with the offset of each entry's moment (`offsetAt`).
 */
import type {
  DailyForecast,
  DailyForecastEntry,
  ForecastEntry,
  HourlyForecast,
} from '../../services/weather/index.js';
import { offsetAt, type PlaceClock } from './zones.js';

const DAY = 86_400;
const HOUR = 3_600;
/**
 * A day with fewer entries than this (the rest of today late in the evening, the last day of the
 * five) would show the low and high of a few hours as the day's: it is left out.
 */
export const MIN_ENTRIES_PER_DAY = 4;

/** Local hours the daily forecast's day parts stand for (morning, day, evening, night). */
const PARTS = { morn: 6, day: 12, eve: 18, night: 0 } as const;

export function dailyFromThreeHourly(forecast: HourlyForecast, clock: PlaceClock): DailyForecast {
  const days = new Map<number, { entries: ForecastEntry[]; offset: number }>();
  for (const entry of forecast.list) {
    const offset = offsetAt(clock, entry.dt);
    const day = Math.floor((entry.dt + offset) / DAY);
    const bucket = days.get(day) ?? { entries: [], offset };
    bucket.entries.push(entry);
    days.set(day, bucket);
  }
  const list = [...days]
    .filter(([, { entries }]) => entries.length >= MIN_ENTRIES_PER_DAY)
    .map(([day, { entries, offset }]) => dayOf(day, entries, offset));
  return {
    ...(forecast.city === undefined ? {} : { city: forecast.city }),
    cnt: list.length,
    list,
  };
}

function dayOf(day: number, entries: readonly ForecastEntry[], offset: number): DailyForecastEntry {
  const localHour = (entry: ForecastEntry) => (entry.dt + offset - day * DAY) / HOUR;
  const nearest = (hour: number) =>
    entries.reduce((best, entry) =>
      Math.abs(localHour(entry) - hour) < Math.abs(localHour(best) - hour) ? entry : best,
    );
  const temps = entries.map((entry) => entry.main.temp);
  const part = (hour: number) => nearest(hour).main.temp;
  const windiest = entries.reduce((best, entry) =>
    (entry.wind?.speed ?? 0) > (best.wind?.speed ?? 0) ? entry : best,
  );
  const sum = (amounts: (number | undefined)[]) => amounts.reduce<number>((a, b) => a + (b ?? 0), 0);
  const rain = sum(entries.map((entry) => entry.rain?.['3h'] ?? entry.rain?.['1h']));
  const snow = sum(entries.map((entry) => entry.snow?.['3h'] ?? entry.snow?.['1h']));
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const clouds = entries.flatMap((entry) => (entry.clouds?.all === undefined ? [] : [entry.clouds.all]));
  const pops = entries.flatMap((entry) => (entry.pop === undefined ? [] : [entry.pop]));
  const condition = dayCondition(entries, localHour);
  return {
    // As the daily forecast dates its days: about midday, local time.
    dt: day * DAY + PARTS.day * HOUR - offset,
    temp: {
      min: Math.min(...temps),
      max: Math.max(...temps),
      morn: part(PARTS.morn),
      day: part(PARTS.day),
      eve: part(PARTS.eve),
      night: part(PARTS.night),
    },
    pressure: Math.round(mean(entries.map((entry) => entry.main.pressure))),
    humidity: Math.round(mean(entries.map((entry) => entry.main.humidity))),
    weather: condition === undefined ? [] : [condition],
    ...(windiest.wind?.speed === undefined ? {} : { speed: windiest.wind.speed }),
    ...(windiest.wind?.deg === undefined ? {} : { deg: windiest.wind.deg }),
    ...(entries.some((entry) => entry.wind?.gust !== undefined)
      ? { gust: Math.max(...entries.map((entry) => entry.wind?.gust ?? 0)) }
      : {}),
    ...(clouds.length === 0 ? {} : { clouds: Math.round(mean(clouds)) }),
    ...(rain > 0 ? { rain: round2(rain) } : {}),
    ...(snow > 0 ? { snow: round2(snow) } : {}),
    ...(pops.length === 0 ? {} : { pop: Math.max(...pops) }),
  };
}

/**
 * The day's weather: the condition seen most often between 06:00 and 21:00 local (all of the
 * entries when none falls then), a tie going to the more eventful one (thunderstorm before drizzle,
 * rain, snow, mist, clouds and clear sky: the service's condition groups in that order), with the
 * day icon.
 */
function dayCondition(entries: readonly ForecastEntry[], localHour: (entry: ForecastEntry) => number) {
  const daytime = entries.filter((entry) => localHour(entry) >= 6 && localHour(entry) <= 21);
  const counts = new Map<number, { count: number; condition: ForecastEntry['weather'][number] }>();
  for (const entry of daytime.length > 0 ? daytime : entries) {
    const condition = entry.weather[0];
    if (condition === undefined) continue;
    const seen = counts.get(condition.id);
    counts.set(condition.id, { count: (seen?.count ?? 0) + 1, condition: seen?.condition ?? condition });
  }
  const [best] = [...counts.values()].sort(
    (a, b) => b.count - a.count || eventfulness(a.condition.id) - eventfulness(b.condition.id),
  );
  if (best === undefined) return undefined;
  const { condition } = best;
  return condition.icon === undefined ? condition : { ...condition, icon: condition.icon.replace(/n$/, 'd') };
}

/** Lower is more eventful: the condition id's group (2xx thunderstorm … 8xx clouds), clear sky last. */
const eventfulness = (id: number) => (id === 800 ? 900 : id);

const round2 = (value: number) => Math.round(value * 100) / 100;
