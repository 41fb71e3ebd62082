/**
 * The Discord side of scheduled posts: what a slot fetches for each kind of post, how it is
 * rendered (the same renderers as the commands), and the post itself, with the slot's nonce and
 * `enforce_nonce` so a retry is dropped by Discord if the first try got through.
 */
import {
  DiscordAPIError,
  PermissionFlagsBits,
  RESTJSONErrorCodes,
  Routes,
  type APIGuildMember,
  type APIMessage,
  type Client,
  type PermissionsBitField,
} from 'discord.js';
import type { Place } from '../domain/weather/places.js';
import type { Logger } from '../logger.js';
import {
  getCurrentWeather,
  getDailyForecast,
  getHourlyForecast,
  type CurrentReport,
  type DailyReport,
  type HourlyReport,
} from '../domain/weather/reports.js';
import {
  ProductNotInPlanError,
  WeatherKeyRejectedError,
  type WeatherProduct,
} from '../domain/weather/errors.js';
import {
  BotTimedOutError,
  PostRefusedError,
  PostRejectedError,
  WeatherRefusedError,
  type WeatherRequest,
} from '../services/schedules/runner.js';
import type { BotPauseCode, Schedule } from '../services/schedules/types.js';
import {
  WeatherBadRequestError,
  WeatherForbiddenError,
  WeatherInvalidKeyError,
  WeatherNotFoundError,
  WeatherParameterError,
  type WeatherClient,
  type WeatherLang,
} from '../services/weather/index.js';
import { scheduleMessages } from './i18n/schedule-messages.js';
import { cachedPermissionsIn, lackingPostPermissions, permissionsOverRest } from './post-permissions.js';
import {
  renderCurrentWeather,
  renderDailyForecast,
  renderHourlyForecast,
  type WeatherMessage,
} from './render/weather.js';

type Report =
  | { kind: 'current'; report: CurrentReport }
  | { kind: 'today'; report: HourlyReport }
  | { kind: 'week'; report: DailyReport };

/**
 * Fetches what one group of due posts shows (in standard units; each post converts). A refusal that
 * retrying cannot mend comes out as a `WeatherRefusedError` (see there); anything else is passed on
 * and tried again within the grace window.
 */
export async function fetchScheduledWeather(
  client: WeatherClient,
  request: WeatherRequest,
  now: () => number = Date.now,
): Promise<Report> {
  try {
    return await fetchReport(client, request, Math.floor(now() / 1000));
  } catch (error) {
    throw refusal(error) ?? error;
  }
}

/** Reasons are stored in English, with a code the schedule list shows in the reader's language. */
const ENGLISH = scheduleMessages('en');
const REASONS = ENGLISH.pauseReasons;

const PLAN_CODES: Partial<Record<WeatherProduct, BotPauseCode>> = {
  current: 'plan-current',
  hourly: 'plan-hourly',
  daily: 'plan-daily',
};

/** The reason a schedule is paused with (shown in the schedule list), or the key's refusal. */
function refusal(error: unknown): WeatherRefusedError | undefined {
  const cause = { cause: error };
  if (error instanceof ProductNotInPlanError) {
    const code = PLAN_CODES[error.product];
    const reason = code ? REASONS[code] : `the bot’s weather plan does not include ${error.product}`;
    return new WeatherRefusedError(reason, 'schedule', { ...cause, code });
  }
  if (
    error instanceof WeatherKeyRejectedError ||
    error instanceof WeatherInvalidKeyError ||
    error instanceof WeatherForbiddenError
  ) {
    return new WeatherRefusedError('the weather service refuses the configured key', 'all', cause);
  }
  // A 400 or 404 pauses the schedule for good only when the service itself said so, in its error
  // body (`cod` and `message`): the same status from a proxy or gateway in front of it (an HTML
  // page) says nothing about the place. Not retried either way (STYLE): that slot is skipped.
  if (error instanceof WeatherBadRequestError || error instanceof WeatherNotFoundError) {
    return error.fromService
      ? new WeatherRefusedError(REASONS['place-refused'], 'schedule', { ...cause, code: 'place-refused' })
      : new WeatherRefusedError(`the weather request was refused: ${error.message}`, 'slot', cause);
  }
  if (error instanceof WeatherParameterError) {
    return new WeatherRefusedError(REASONS['place-refused'], 'schedule', { ...cause, code: 'place-refused' });
  }
  return undefined;
}

async function fetchReport(client: WeatherClient, request: WeatherRequest, nowSec: number): Promise<Report> {
  const place: Place = { lat: request.lat, lon: request.lon, label: '' };
  const lang = request.lang as WeatherLang;
  switch (request.kind) {
    case 'current':
      return { kind: 'current', report: await getCurrentWeather(client, place, { lang }) };
    case 'today':
      return { kind: 'today', report: await getHourlyForecast(client, place, { hours: 24, lang, nowSec }) };
    case 'week':
      return { kind: 'week', report: await getDailyForecast(client, place, { days: 7, lang, nowSec }) };
  }
}

/** The message of one scheduled post: the group's weather, in the schedule's place name, units and language. */
export function renderScheduledPost(schedule: Schedule, fetched: Report, siteUrl: string): WeatherMessage {
  const options = {
    units: schedule.units,
    locale: schedule.lang === 'en' ? 'en-US' : schedule.lang,
    siteUrl,
    scheduleId: schedule.id,
  };
  const place = { ...fetched.report.place, label: schedule.place.label };
  switch (fetched.kind) {
    case 'current':
      return { embeds: [renderCurrentWeather({ ...fetched.report, place }, options)], files: [] };
    case 'today':
      return renderHourlyForecast({ ...fetched.report, place }, options);
    case 'week':
      return renderDailyForecast({ ...fetched.report, place }, options);
  }
}

const GONE: Partial<Record<number, BotPauseCode>> = {
  [RESTJSONErrorCodes.UnknownChannel]: 'channel-deleted',
  [RESTJSONErrorCodes.MissingAccess]: 'channel-hidden',
  [RESTJSONErrorCodes.MissingPermissions]: 'missing-permission',
};

/**
 * Statuses of a post Discord refuses as it is: malformed (400), forbidden for a reason other than
 * the channel's (403, such as 50083 for an archived thread the bot may not reopen), unknown (404),
 * too large (413). Only with a JSON error code of Discord's: see the poster.
 */
const REFUSED_STATUSES = new Set([400, 403, 404, 413]);

/** Discord's own word that it will not tell about the bot's member (the server or member unknown, no access). */
const LOOKUP_REFUSALS = new Set<number>([
  RESTJSONErrorCodes.UnknownGuild,
  RESTJSONErrorCodes.UnknownMember,
  RESTJSONErrorCodes.MissingAccess,
  RESTJSONErrorCodes.MissingPermissions,
]);

/** Cloudflare's 403 for a host that made too many invalid requests: lifted after a while. */
const CLOUDFLARE_BLOCK = 40333;

type PostLogger = Pick<Logger, 'warn' | 'debug'>;

/**
 * When the bot's timeout on a server ends, if it is timed out at `now`: from its own member in the
 * cache (kept up to date by GUILD_MEMBER_UPDATE), or asked of Discord when this process does not
 * hold the server's shard. Undefined when not timed out, and when the lookup is refused for good (any
 * 4xx: Discord's refusals, and a route or method a server does not have): the post's refusal is then
 * taken as Discord gave it, a missing permission; trying the post again would earn another 403 every
 * few seconds for the grace window, each counted toward Discord's limit on invalid requests. When
 * Discord cannot be asked for a while (a 5xx, a 429, the network, Cloudflare's block of the host),
 * this throws, and the post is tried again within the grace window rather than its schedule paused
 * for a permission a timeout may have taken away.
 */
async function botTimedOutUntil(
  client: Client,
  guildId: string,
  now: number,
  logger: PostLogger | undefined,
): Promise<{ until: number | undefined; member?: APIGuildMember }> {
  let until = client.guilds.cache.get(guildId)?.members.me?.communicationDisabledUntilTimestamp;
  let member: APIGuildMember | undefined;
  if (until === undefined && client.user) {
    member = (await client.rest.get(Routes.guildMember(guildId, client.user.id)).catch((error: unknown) => {
      const final =
        error instanceof DiscordAPIError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.code !== CLOUDFLARE_BLOCK;
      if (!final) throw error;
      const refused = LOOKUP_REFUSALS.has(Number(error.code));
      logger?.[refused ? 'debug' : 'warn'](
        { err: error, guildId },
        "the bot's own member could not be looked up after a post refused for a missing permission: taken as the permission missing",
      );
      return undefined;
    })) as APIGuildMember | undefined;
    const iso = member?.communication_disabled_until;
    until = iso ? Date.parse(iso) : null;
  }
  return {
    until: until && until > now ? until : undefined,
    ...(member === undefined ? {} : { member }),
  };
}

/**
 * Whether a post refused with Missing Access was refused because the bot is no longer in the
 * server (removed while this process was not running, so no GUILD_DELETE paused its schedules),
 * rather than because it cannot see the channel: its own member there is looked up once, which
 * Discord refuses with the same 50001 (or 10004 for a server that is gone) to a bot that is not a
 * member (or 10007 Unknown Member, which the endpoint documents for a member who is not there). A
 * server in the cache is one the bot is in (READY lists them all). Any other answer, or none,
 * leaves the refusal as the channel's.
 */
async function notAMember(client: Client, guildId: string): Promise<boolean> {
  if (!client.user || client.guilds.cache.has(guildId)) return false;
  try {
    await client.rest.get(Routes.guildMember(guildId, client.user.id));
    return false;
  } catch (error) {
    return (
      error instanceof DiscordAPIError &&
      (error.code === RESTJSONErrorCodes.MissingAccess ||
        error.code === RESTJSONErrorCodes.UnknownGuild ||
        error.code === RESTJSONErrorCodes.UnknownMember)
    );
  }
}

/**
 * Posts a scheduled message; a channel that is gone or closed to the bot pauses the schedule. A
 * post refused for a missing permission while the bot is timed out on the server is skipped
 * instead: the permissions come back when the timeout ends.
 */
export function createScheduledPoster(
  client: Client,
  siteUrl: string,
  now: () => number = Date.now,
  logger?: PostLogger,
) {
  return async (schedule: Schedule, weather: unknown, nonce: string): Promise<void> => {
    const message = renderScheduledPost(schedule, weather as Report, siteUrl);
    let posted: APIMessage;
    try {
      posted = (await client.rest.post(Routes.channelMessages(schedule.channelId), {
        body: {
          embeds: message.embeds.map((embed) => embed.toJSON()),
          attachments: message.files.map((file, id) => ({
            id,
            filename: file.name,
            description: file.description,
          })),
          nonce,
          enforce_nonce: true,
          // Embeds only today, which never ping; said outright so that no text added later can.
          allowed_mentions: { parse: [] },
        },
        files: message.files.map((file) => ({
          name: file.name,
          data: file.attachment,
          contentType: 'image/png',
        })),
      })) as APIMessage;
    } catch (error) {
      if (!(error instanceof DiscordAPIError)) throw error;
      const code = typeof error.code === 'number' ? GONE[error.code] : undefined;
      if (code === 'missing-permission') {
        const { until, member } = await botTimedOutUntil(client, schedule.guildId, now(), logger);
        if (until !== undefined) throw new BotTimedOutError(until, { cause: error });
        // The bot's own member, when just fetched for its timeout, serves the permissions too.
        throw missingPermission(schedule, await postPermissions(client, schedule, member), error);
      }
      if (code === 'channel-hidden' && (await notAMember(client, schedule.guildId))) {
        throw new PostRejectedError(REASONS['bot-removed'], 'bot-removed', { cause: error });
      }
      if (code) throw new PostRejectedError(REASONS[code], code, { cause: error });
      // Discord's own refusal of this message (a JSON error code with 400, 403, 404 or 413) will not
      // mend on a retry, and each retry would count toward Discord's limit on invalid requests
      // (STYLE: never retry a 403). Other 4xx may mend: a 401 (the token, for every post alike),
      // Cloudflare's 403 40333 (its block of the host, lifted after a while) or a 403 without
      // Discord's JSON body (a proxy's), 408, 409. Those are retried within the grace window, as
      // 5xx are.
      if (
        REFUSED_STATUSES.has(error.status) &&
        typeof error.code === 'number' &&
        error.code !== CLOUDFLARE_BLOCK
      )
        // The status is for the log (the message); the list and the test command show Discord's words.
        throw new PostRefusedError(`Discord refused the post: ${error.status} ${error.message}`, {
          cause: error,
          detail: error.message,
        });
      throw error;
    }
    // Without Embed Links, Discord takes a message that has files too, dropping its embeds: the
    // channel would get bare charts from now on, with nothing to say why. Taken back, and the
    // schedule paused, as a post refused for a missing permission is. Discord does not document
    // this, and an answer without embeds may have other causes (a proxy, a server other than
    // Discord's): it is taken for the missing permission only when the bot's permissions there
    // (cached, or asked of Discord by a process that does not hold the server's shard) say it may
    // not embed links. Otherwise the post stays and the owner is told.
    const echoed = (posted as Partial<APIMessage>).embeds ?? [];
    if (message.embeds.length > 0 && echoed.length === 0) {
      const where = { scheduleId: schedule.id, channelId: schedule.channelId, messageId: posted.id };
      const granted = await postPermissions(client, schedule);
      const mayEmbed = granted?.has(PermissionFlagsBits.EmbedLinks);
      if (mayEmbed !== false) {
        logger?.warn(
          where,
          mayEmbed
            ? 'Discord answered a scheduled post without its embeds, though the bot may embed links in the channel: the post was kept'
            : "Discord answered a scheduled post without its embeds, and the bot's permissions in the channel are not known here: the post was kept",
        );
        return;
      }
      await client.rest
        .delete(Routes.channelMessage(schedule.channelId, posted.id))
        .catch((error: unknown) => {
          logger?.warn(
            { err: error, ...where },
            'a scheduled post Discord took without its embeds could not be deleted: it stays in the channel',
          );
        });
      throw missingPermission(schedule, granted);
    }
  };
}

/**
 * The bot's permissions in the schedule's channel: from the cache, or asked of Discord when this
 * process does not hold the server's shard; undefined when neither tells.
 */
async function postPermissions(
  client: Client,
  schedule: Schedule,
  member?: APIGuildMember,
): Promise<Readonly<PermissionsBitField> | undefined> {
  return (
    cachedPermissionsIn(client, schedule.channelId) ??
    (await permissionsOverRest(client, schedule.guildId, schedule.channelId, member))
  );
}

/**
 * The pause for a permission the bot lacks in the channel, naming the ones `granted` lacks
 * (Discord's 50013 does not say which), in English in the reason and as names for the list.
 */
function missingPermission(
  schedule: Schedule,
  granted: Readonly<PermissionsBitField> | undefined,
  cause?: unknown,
): PostRejectedError {
  const missing = granted ? lackingPostPermissions(granted, schedule.kind) : [];
  const reason =
    missing.length === 0
      ? REASONS['missing-permission']
      : ENGLISH.lacksPermissions(missing.map((name) => ENGLISH.permissionNames[name]));
  return new PostRejectedError(reason, 'missing-permission', {
    ...(cause === undefined ? {} : { cause }),
    missing,
  });
}
