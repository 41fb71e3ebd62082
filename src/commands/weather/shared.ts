import type { SlashCommandStringOption } from '@discordjs/builders';
import { MessageFlags, type AutocompleteInteraction, type ChatInputCommandInteraction } from 'discord.js';
import type { Storage } from '../../storage/index.js';
import type { BotContext, WeatherServices } from '../../bot/context.js';
import { UserError } from '../../bot/errors.js';
import { answerPrivately } from '../../bot/private-answer.js';
import { waitText } from '../../bot/i18n/common.js';
import { langOf, localize, type CommandText, type Lang } from '../../bot/i18n/index.js';
import { WEATHER_COMMAND_TEXT, weatherMessages, type WeatherMessages } from '../../bot/i18n/weather.js';
import { fit, type WeatherRenderOptions } from '../../bot/render/weather.js';
import type { Subcommand } from '../../bot/subcommands.js';
import {
  CoordinatesOffEarthError,
  DateBeforeRecordsError,
  InvalidDateError,
  InvalidRangeError,
  NoPlaceError,
  NoSuchDateError,
  PlaceNotFoundError,
  PostalCodeNotFoundError,
  ProductNotInPlanError,
  WeatherKeyRejectedError,
} from '../../domain/weather/errors.js';
import {
  decodePlace,
  encodePlace,
  MAX_CHOICE_LENGTH,
  resolvePlace,
  suggestPlaces,
  type Place,
} from '../../domain/weather/places.js';
import { escapeMarkdown } from '../../domain/text.js';
import { HISTORY_MAX_HOURS } from '../../domain/weather/dates.js';
import {
  chooseUnits,
  getDefaultPlace,
  getMemberPrefs,
  getServerPrefs,
  type MemberWeatherPrefs,
} from '../../domain/weather/prefs.js';
import {
  HttpError,
  NetworkError,
  ResponseValidationError,
  TimeoutError,
  unanswered,
} from '../../services/http/errors.js';
import {
  RateLimitError,
  WeatherBadRequestError,
  WeatherNotFoundError,
  WeatherParameterError,
  type WeatherLang,
} from '../../services/weather/index.js';
import { withinMs } from '../../services/time-limit.js';
import { ownerNotice } from '../../logger.js';

export const PLACE_OPTION = 'place';

/** Discord's limit for a message's text. */
export const MAX_CONTENT_LENGTH = 2000;

/** Autocomplete cannot be deferred: a slow geocoder gets this long before the list comes back empty. */
const AUTOCOMPLETE_BUDGET_MS = 2_000;

/** Everything a handler needs to know about who asks and how to answer them. */
export interface WeatherRequest {
  lang: Lang;
  /** The language weather descriptions are asked in: the reply's. */
  serviceLang: WeatherLang;
  t: WeatherMessages;
  render: WeatherRenderOptions;
  /** The member's preferences, as read for this request. */
  member: MemberWeatherPrefs;
  /** Where the member's and the server's preferences are. */
  storage: Storage;
}

export async function weatherRequest(
  interaction: ChatInputCommandInteraction | AutocompleteInteraction,
  weather: WeatherServices,
  ctx: BotContext,
): Promise<WeatherRequest> {
  const lang = langOf(interaction.locale);
  const member = await getMemberPrefs(ctx.storage, interaction.user.id);
  return {
    lang,
    serviceLang: lang,
    t: weatherMessages(lang),
    render: {
      units: chooseUnits(member, interaction.locale),
      locale: interaction.locale,
      siteUrl: weather.siteUrl,
    },
    member,
    storage: ctx.storage,
  };
}

/** The `place` option: free text, with autocomplete whose values carry coordinates. */
export function placeOption(text: CommandText = WEATHER_COMMAND_TEXT.options.place, required = false) {
  return (option: SlashCommandStringOption) =>
    localize(option, text).setAutocomplete(true).setMaxLength(MAX_CHOICE_LENGTH).setRequired(required);
}

/**
 * Defers the reply and gives the place the member asked for: the `place` option, else their home,
 * else the server's default. What needs no service call (a chosen value, a saved place, none at
 * all) is settled before deferring, so its problems are answered privately at once; typed text is
 * geocoded after.
 */
export async function deferWithPlace(
  interaction: ChatInputCommandInteraction,
  weather: WeatherServices,
  request: WeatherRequest,
  reply: { ephemeral?: boolean; required?: boolean } = {},
): Promise<Place> {
  const typed = interaction.options.getString(PLACE_OPTION)?.trim();
  // A required place sent as spaces only: not a reason to save or schedule a place never typed.
  if (reply.required && !typed) throw new UserError(request.t.blankPlace);
  const known = typed
    ? decodePlace(typed)
    : await getDefaultPlace(request.storage, request.member, interaction.guildId);
  await interaction.deferReply(reply.ephemeral ? { flags: MessageFlags.Ephemeral } : {});
  return known ?? resolvePlace(weather.client, typed ?? '', request.serviceLang);
}

/** Typed text is geocoded from this many characters on (see `placeAutocomplete`). */
const MIN_GEOCODED_LENGTH = 3;

/**
 * Places for what the member is typing: their saved places that match it until it holds three
 * characters, geocoding matches (name, state, country) from then on. Any failure answers an
 * empty list.
 */
export async function placeAutocomplete(
  interaction: AutocompleteInteraction,
  weather: WeatherServices,
  ctx: BotContext,
): Promise<void> {
  let places: Place[] = [];
  try {
    const focused = interaction.options.getFocused(true);
    if (focused.name === PLACE_OPTION) {
      const typed = String(focused.value).trim();
      const lang = langOf(interaction.locale);
      const chosen = decodePlace(typed);
      if (chosen) places = [chosen];
      // Discord asks again as each character is typed: the first ones would spend geocoding calls
      // of the key's plan (the free one has 60 a minute) on prefixes nobody means.
      else if ([...typed].length < MIN_GEOCODED_LENGTH) {
        const saved = await savedPlaces(interaction, ctx.storage);
        places = saved.filter((place) => place.label.toLowerCase().startsWith(typed.toLowerCase()));
      } else
        places = await withinMs(
          suggestPlaces(weather.client, typed, lang),
          AUTOCOMPLETE_BUDGET_MS,
          'autocomplete budget exceeded',
        );
    }
  } catch (error) {
    ctx.logger.debug({ err: error }, 'place autocomplete answered nothing');
    places = [];
  }
  // The member's home and the server's may be one place: offered once.
  const choices = new Map(
    places.map((place) => [encodePlace(place), fit(place.label, MAX_CHOICE_LENGTH)] as const),
  );
  await interaction.respond([...choices].slice(0, 25).map(([value, name]) => ({ name, value })));
}

async function savedPlaces(interaction: AutocompleteInteraction, storage: Storage): Promise<Place[]> {
  const member = await getMemberPrefs(storage, interaction.user.id);
  const server = interaction.guildId === null ? {} : await getServerPrefs(storage, interaction.guildId);
  return [member.home, server.home].filter((place): place is Place => place !== undefined);
}

const FIELD_NAMES: Record<'start' | 'end', keyof typeof WEATHER_COMMAND_TEXT.options> = {
  start: 'historyStart',
  end: 'historyEnd',
};

/** What the member typed, quoted back: shortened, and escaped so it reads as typed, not as markdown. */
const typed = (text: string, max: number) => escapeMarkdown(fit(text, max));

/** The member's sentence for an expected weather problem; `undefined` for anything internal. */
export function describeWeatherProblem(error: unknown, lang: Lang): string | undefined {
  const t = weatherMessages(lang);
  if (error instanceof UserError) return error.message;
  if (error instanceof PlaceNotFoundError) {
    const head = t.placeNotFound(typed(error.query, 100));
    return error.suggestions.length > 0
      ? `${head}\n${t.didYouMean(error.suggestions.map((place) => escapeMarkdown(place.label)))}`
      : `${head}\n${t.placeTips}`;
  }
  if (error instanceof PostalCodeNotFoundError)
    return t.postalCodeNotFound(typed(error.code, 20), error.country, error.usZip);
  if (error instanceof CoordinatesOffEarthError) return t.coordinatesOffEarth(typed(error.text, 100));
  if (error instanceof NoPlaceError) return t.noPlace;
  if (error instanceof InvalidDateError) {
    return t.invalidDate(
      WEATHER_COMMAND_TEXT.options[FIELD_NAMES[error.field]].name[lang],
      typed(error.text, 100),
    );
  }
  if (error instanceof NoSuchDateError) {
    const { missing } = error;
    switch (missing.kind) {
      case 'date':
        return t.noSuchDate(missing.day, missing.month, missing.year);
      case 'calendar-day':
        return missing.monthGiven
          ? t.noSuchCalendarDay(missing.day, missing.month)
          : t.dayNotInMonth(missing.day, missing.month, WEATHER_COMMAND_TEXT.options.month.name[lang]);
      case 'month':
        return t.noSuchMonth(missing.month);
      case 'time':
        return t.noSuchTime(typed(missing.time, 20));
    }
  }
  if (error instanceof DateBeforeRecordsError) {
    return t.beforeRecords(
      typed(error.text, 100),
      WEATHER_COMMAND_TEXT.options[FIELD_NAMES[error.field]].name[lang],
    );
  }
  if (error instanceof InvalidRangeError) {
    switch (error.problem) {
      case 'future':
        return t.rangeFuture;
      case 'utc-future':
        return t.rangeUtcFuture;
      case 'order':
        return t.rangeOrder;
      case 'end-and-hours':
        return t.endAndHours;
      case 'too-long':
        return error.limit?.unit === 'days'
          ? t.rangeTooLongDays(error.limit.max)
          : t.rangeTooLongHours(error.limit?.max ?? HISTORY_MAX_HOURS);
    }
  }
  if (error instanceof ProductNotInPlanError) return t.notInPlan(t.products[error.product]);
  if (error instanceof WeatherKeyRejectedError) return t.keyRejected;
  if (error instanceof RateLimitError) {
    // A wait under a second (`Retry-After: 0`) is no wait worth naming: "0 seconds" reads as a fault.
    const wait = error.retryAfterMs ?? 0;
    return t.rateLimited(wait < 1_000 ? undefined : waitText(wait, lang));
  }
  // A fault on the service's side (5xx, also after the retries) reads as "not answering" too.
  if (error instanceof TimeoutError || error instanceof NetworkError) return t.unavailable;
  if (error instanceof HttpError && error.status >= 500) return t.unavailable;
  if (error instanceof ResponseValidationError) return t.unreadable;
  // Asked for a place and time the service keeps nothing about (history, statistics, totals).
  if (error instanceof WeatherNotFoundError) return t.noData;
  // What was refused, and why, is for the log (`logWeatherProblem`): parameter names and status
  // texts mean nothing to a member, and the bot's own check is not the service's refusal.
  if (error instanceof WeatherBadRequestError) return t.refused;
  if (error instanceof WeatherParameterError) return t.invalidRequest;
  return undefined;
}

/**
 * A weather problem in the owner's log, at the level it needs: what the owner must mend (the key,
 * an answer this version cannot read) or should know of (the service down or limiting the bot, a
 * product the plan lacks) at warn or error, once a minute for each kind; a member's own (a place
 * not found, a date refused) at debug. Repeats within that minute go to debug too.
 */
function logWeatherProblem(
  logger: BotContext['logger'],
  error: unknown,
  where: Record<string, unknown>,
): void {
  const at = (level: 'warn' | 'error', kind: string, message: string) => {
    // Repeats within the minute go to debug, not away.
    logger[ownerNotice(logger, `weather:${kind}`) ? level : 'debug']({ err: error, ...where }, message);
  };
  if (error instanceof WeatherKeyRejectedError)
    at(
      'warn',
      'key',
      'the weather service refuses the key: check WEATHER_API_KEY; a new key can take a few hours to be activated',
    );
  else if (error instanceof ResponseValidationError)
    at(
      'error',
      'unreadable',
      'the weather service answered in a form this version cannot read: update the bot',
    );
  else if (error instanceof RateLimitError)
    at(
      'warn',
      'rate-limited',
      'the weather service is limiting this bot’s requests (429): members are told to wait',
    );
  else if (unanswered(error))
    at('warn', 'unavailable', 'the weather service is not answering: members are told to try again later');
  else if (error instanceof ProductNotInPlanError)
    at(
      'warn',
      `plan:${error.product}`,
      'the weather plan of WEATHER_API_KEY does not include a product a command needs',
    );
  else logger.debug({ err: error, ...where }, 'weather request refused');
}

/** Answers the weather problems a member can act on in their language; the rest go to the router. */
export function withWeatherErrors(sub: Subcommand<WeatherServices>): Subcommand<WeatherServices> {
  return {
    ...sub,
    async execute(interaction, weather, ctx) {
      try {
        await sub.execute(interaction, weather, ctx);
      } catch (error) {
        const message = describeWeatherProblem(error, langOf(interaction.locale));
        if (message === undefined) throw error;
        logWeatherProblem(ctx.logger, error, {
          interactionId: interaction.id,
          guildId: interaction.guildId,
          userId: interaction.user.id,
        });
        await answerPrivately(interaction, { content: fit(message, MAX_CONTENT_LENGTH) });
      }
    },
  };
}
