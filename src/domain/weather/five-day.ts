/**
 * A daily forecast made from the 5-day/3-hour one, for keys whose plan lacks the daily forecast
 * (the real service's free plan: current weather, the 5-day/3-hour forecast and geocoding). Days
 * are the place's own calendar days, each entry read with the offset of its own moment.
 */
import type {
  Condition,
  DailyForecast,
  DailyForecastEntry,
  ForecastEntry,
  HourlyForecast,
} from '../../services/weather/index.js';
import { byLocalDay, localDayNumber, localHour, offsetAt, wallToUnix, type PlaceClock } from './zones.js';

const DAY = 86_400;
const HOUR = 3_600;

/**
 * Local hours the day parts stand for. `night` is the night the day ends in, as a forecast's "Day
 * 12° · Night 4°" is read: the day's last step.
 */
const PARTS = { morn: 6, day: 12, eve: 18, night: 24 } as const;
/** A step stands for a part of the day within half the 3 hours between steps. */
const PART_REACH_HOURS = 1.5;

export function dailyFromThreeHourly(forecast: HourlyForecast, clock: PlaceClock): DailyForecast {
  const rain = amountsByLocalDay(forecast.list, clock, 3, (entry) => entry.rain?.['3h'] ?? 0);
  const snow = amountsByLocalDay(forecast.list, clock, 3, (entry) => entry.snow?.['3h'] ?? 0);
  const list = byLocalDay(forecast.list, clock)
    .filter((entries) => coversDayAndNight(entries, clock))
    .map((entries) => {
      const day = localDayNumber(clock, entries[0]!.dt);
      return dayOf(entries, clock, { rain: rain.get(day) ?? 0, snow: snow.get(day) ?? 0 });
    });
  return {
    ...(forecast.city === undefined ? {} : { city: forecast.city }),
    cnt: list.length,
    list,
  };
}

/**
 * Whether the steps of a day reach from midday to its last hours, so that its "day" and "night"
 * (what the daily view shows) are the day's own: the rest of today until about 13:30, every whole
 * day; not the last day of the five, which ends in its morning.
 */
function coversDayAndNight(entries: readonly ForecastEntry[], clock: PlaceClock): boolean {
  const hours = entries.map((entry) => localHour(clock, entry.dt));
  return (
    hours.some((hour) => Math.abs(hour - PARTS.day) <= PART_REACH_HOURS) &&
    hours.some((hour) => PARTS.night - hour <= 3)
  );
}

/**
 * What fell on each of the place's days, by local day number, from amounts that each stand for the
 * `hours` hours ending at their entry (the 5-day forecast's `3h`: "for last 3 hours"): shared out
 * hour by hour, so the step at midnight counts for the evening before, and a step whose hours span
 * midnight (where the offset is not a multiple of three hours) for both days.
 */
export function amountsByLocalDay<T extends { dt: number }>(
  entries: readonly T[],
  clock: PlaceClock,
  hours: number,
  amountOf: (entry: T) => number,
): Map<number, number> {
  const days = new Map<number, number>();
  for (const entry of entries) {
    const amount = amountOf(entry);
    if (amount === 0) continue;
    for (let hour = 1; hour <= hours; hour += 1) {
      const day = localDayNumber(clock, entry.dt - hour * HOUR);
      days.set(day, (days.get(day) ?? 0) + amount / hours);
    }
  }
  return days;
}

function dayOf(
  entries: readonly ForecastEntry[],
  clock: PlaceClock,
  fell: { rain: number; snow: number },
): DailyForecastEntry {
  const first = entries[0]!;
  const localMidnight = Math.floor((first.dt + offsetAt(clock, first.dt)) / DAY) * DAY;
  const nearest = (hour: number) =>
    entries.reduce((best, entry) =>
      Math.abs(localHour(clock, entry.dt) - hour) < Math.abs(localHour(clock, best.dt) - hour) ? entry : best,
    ).main.temp;
  const temps = entries.map((entry) => entry.main.temp);
  const windiest = entries.reduce((best, entry) =>
    (entry.wind?.speed ?? 0) > (best.wind?.speed ?? 0) ? entry : best,
  );
  const { rain, snow } = fell;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const clouds = entries.flatMap((entry) => (entry.clouds?.all === undefined ? [] : [entry.clouds.all]));
  const pops = entries.flatMap((entry) => (entry.pop === undefined ? [] : [entry.pop]));
  const condition = typicalCondition(entries, (entry) => localHour(clock, entry.dt));
  return {
    // As the daily forecast dates its days: midday, local time.
    dt: wallToUnix(clock, localMidnight + PARTS.day * HOUR),
    temp: {
      min: Math.min(...temps),
      max: Math.max(...temps),
      morn: nearest(PARTS.morn),
      day: nearest(PARTS.day),
      eve: nearest(PARTS.eve),
      night: nearest(PARTS.night),
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
 * A day's weather from its hours or steps: the condition seen most often between 06:00 and 21:00
 * local (in all of them when none falls then), a tie going to the more eventful one (see
 * `eventfulness`), with the day icon.
 */
export function typicalCondition<T extends { weather: readonly Condition[] }>(
  entries: readonly T[],
  hourOf: (entry: T) => number,
): Condition | undefined {
  const daytime = entries.filter((entry) => hourOf(entry) >= 6 && hourOf(entry) <= 21);
  const counts = new Map<number, { count: number; condition: Condition }>();
  for (const entry of daytime.length > 0 ? daytime : entries) {
    const condition = entry.weather[0];
    if (condition === undefined) continue;
    const seen = counts.get(condition.id);
    counts.set(condition.id, { count: (seen?.count ?? 0) + 1, condition: seen?.condition ?? condition });
  }
  const [best] = [...counts.values()].sort(
    (a, b) => b.count - a.count || eventfulness(b.condition.id) - eventfulness(a.condition.id),
  );
  const condition = best?.condition;
  if (condition?.icon === undefined) return condition;
  return { ...condition, icon: condition.icon.replace(/n$/, 'd') };
}

/**
 * Higher is more eventful: thunderstorm, snow, rain, drizzle, mist and the like, clouds, clear sky
 * (by the condition id's group), and within a group the higher id (heavier rain, more clouds).
 */
function eventfulness(id: number): number {
  const group = Math.floor(id / 100);
  const rank =
    id === 800 ? 0 : (({ 2: 6, 6: 5, 5: 4, 3: 3, 7: 2, 8: 1 } as Record<number, number>)[group] ?? 0);
  return rank * 1_000 + id;
}

const round2 = (value: number) => Math.round(value * 100) / 100;
