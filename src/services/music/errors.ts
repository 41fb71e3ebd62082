/**
 * The music service's own errors, built on the transport's hierarchy. Each carries a `userMessage`
 * when it is an expected problem a member can act on (premium required, no active device…), so the
 * bot can show it as a user error instead of a generic failure.
 */
import { formatWait, HttpError, RateLimitError, UpstreamError } from '../http/errors.js';
import { parseRetryAfter } from '../http/transport.js';
import { formatCount, withArticle } from '../../domain/text.js';
import { apiErrorBodySchema, looseErrorBodySchema, oauthErrorBodySchema } from './schemas.js';

/** The parts of an error body the service uses: `{error:{status,message,reason}}` or the OAuth `{error,error_description}`. */
export interface MusicErrorInfo {
  message: string | undefined;
  reason: string | undefined;
  /** OAuth error code from the token endpoint (`invalid_grant`, `invalid_client`, …). */
  oauthError: string | undefined;
}

export function readErrorInfo(body: unknown): MusicErrorInfo {
  // Some refusals come as plain text, not JSON: the 403 for a user missing from a development-mode
  // app's user list reads "Check settings on developer.…/dashboard, the user may not be registered."
  // (spotipy #688/#689; still so in 2026). An HTML page (a proxy's) is not a message.
  if (typeof body === 'string') {
    const text = body.trim();
    return {
      message: text === '' || text.startsWith('<') ? undefined : text,
      reason: undefined,
      oauthError: undefined,
    };
  }
  const oauth = oauthErrorBodySchema.safeParse(body);
  if (oauth.success) {
    return { message: oauth.data.error_description, reason: undefined, oauthError: oauth.data.error };
  }
  // The documented body first, then anything shaped like it (the 429 sample, a body missing `status`).
  const api = apiErrorBodySchema.safeParse(body);
  const error = api.success ? api.data.error : looseErrorBodySchema.safeParse(body).data?.error;
  return { message: error?.message, reason: error?.reason, oauthError: undefined };
}

/** For `TransportOptions.describeError`: the service's message, with the player reason or OAuth code. */
export function describeMusicError(body: unknown): string | undefined {
  const { message, reason, oauthError } = readErrorInfo(body);
  if (oauthError !== undefined) return message === undefined ? oauthError : `${oauthError}: ${message}`;
  if (message === undefined) return reason;
  return reason === undefined ? message : `${message} [${reason}]`;
}

/** An `HttpError` re-typed by what the music service meant; keeps every field of the original. */
export class MusicHttpError extends HttpError {
  override readonly name: string = 'MusicHttpError';
  /** The player `reason` or the OAuth error code, when the body had one. */
  readonly reason: string | undefined;
  /** A short sentence for the member, when the problem is theirs to fix. */
  readonly userMessage: string | undefined;

  constructor(source: HttpError, userMessage?: string) {
    super(
      source.service,
      source.method,
      source.url,
      source.status,
      source.statusText,
      source.body,
      source.detail,
      source.headers,
    );
    const info = readErrorInfo(source.body);
    this.reason = info.reason ?? info.oauthError;
    this.userMessage = userMessage;
  }
}

/** 401: the token was missing, invalid or expired; or the token endpoint refused our credentials. */
export class MusicAuthError extends MusicHttpError {
  override readonly name: string = 'MusicAuthError';
  constructor(source: HttpError) {
    super(source, 'Your music account link needs renewing: run `/music link` to link it again.');
  }
}

/**
 * The token endpoint refused the bot's own client credentials (RFC 6749 §5.2 `invalid_client`, or
 * a 400/401 to the client-credentials grant): the owner's `MUSIC_CLIENT_ID` / `MUSIC_CLIENT_SECRET`
 * are wrong or the app was removed. Nothing a member can mend, so no link prompt: they are told to
 * reach the owner, and the log says what to check.
 */
export class AppCredentialsError extends UpstreamError {
  override readonly name: string = 'AppCredentialsError';
  readonly userMessage =
    'This bot’s music app is not set up right: the music service refuses its credentials. Please tell the bot’s owner.';
  /** `detail`: what the service said, already redacted. */
  constructor(detail: string | undefined, options?: ErrorOptions) {
    super(
      'The music service refuses the app’s client credentials' +
        (detail ? ` (${detail})` : '') +
        ': check MUSIC_CLIENT_ID and MUSIC_CLIENT_SECRET',
      'music',
      options,
    );
  }
}

/**
 * 429 `QUOTA_EXCEEDED`: the app has used up its request quota, that of a development-mode app,
 * counted per developer account (upstream-facts, Jul 2026). Not the rolling rate limit: waiting
 * seconds cannot mend it, so the transport does not retry it. The member is told it is the app's
 * quota, not their doing; the message (logged for the owner) says what to do about it.
 */
export class QuotaExceededError extends RateLimitError {
  override readonly name: string = 'QuotaExceededError';
  readonly reason = 'QUOTA_EXCEEDED';
  readonly userMessage: string;

  constructor(source: HttpError) {
    const retryAfterMs = parseRetryAfter(source.headers['retry-after']);
    super(source.service, source.method, source.url, retryAfterMs);
    // `Retry-After: 0` names no wait worth telling anyone.
    const wait = retryAfterMs ? formatWait(retryAfterMs) : undefined;
    this.message =
      `${source.message}: the app has used up its request quota with the music service (counted per ` +
      `developer account), so the call was not retried${wait ? `; the service says to wait ${wait}` : ''}. ` +
      'The app is in development mode: request extended quota for it in the music service’s developer dashboard.';
    this.userMessage =
      'This bot’s music app has used up its request quota with the music service for now. That is not ' +
      `something you did: please try again ${wait ? `in ${wait}` : 'later'}. ` +
      'The bot’s owner can see the details in the log.';
  }
}

/** 403 with no more specific meaning: authenticated, but not allowed to do this. */
export class ForbiddenError extends MusicHttpError {
  override readonly name: string = 'ForbiddenError';
}

/** 403 `Insufficient client scope`: the member granted fewer permissions than this call needs. */
export class InsufficientScopeError extends ForbiddenError {
  override readonly name: string = 'InsufficientScopeError';
  constructor(source: HttpError) {
    super(
      source,
      'This needs a permission your music account link does not include (`/music status` shows what it allows). ' +
        '`/music link` asks for it again; the music service decides what it grants.',
    );
  }
}

/** 403 on an account that is not on the app's development-mode allow-list. */
export class UserNotRegisteredError extends ForbiddenError {
  override readonly name: string = 'UserNotRegisteredError';
  constructor(source: HttpError) {
    super(source, 'Your music account is not on this app’s user list; ask the bot’s owner to add you.');
  }
}

/** Base of the player's refusals (403/404 with a `reason`). */
export class PlayerError extends MusicHttpError {
  override readonly name: string = 'PlayerError';
}

/** 403 `PREMIUM_REQUIRED`: player commands need a premium account. */
export class PremiumRequiredError extends PlayerError {
  override readonly name: string = 'PremiumRequiredError';
  constructor(source: HttpError) {
    super(source, 'Controlling playback needs a premium music account.');
  }
}

/** 404 `NO_ACTIVE_DEVICE`: nothing is playing anywhere the service can reach. */
export class NoActiveDeviceError extends PlayerError {
  override readonly name: string = 'NoActiveDeviceError';
  constructor(
    source: HttpError,
    userMessage = 'No active device: start playing on one of your devices first.',
  ) {
    super(source, userMessage);
  }
}

/**
 * 404 `NO_ACTIVE_DEVICE` to a command sent to a device the member chose: the service acts only where
 * music is playing, and it is not playing there. Still a `NoActiveDeviceError` (the member is shown
 * their devices with it); `userMessage` names the devices, `cause` is the service's own error.
 */
export class ChosenDeviceNotPlayingError extends NoActiveDeviceError {
  override readonly name: string = 'ChosenDeviceNotPlayingError';
  constructor(source: NoActiveDeviceError, userMessage: string) {
    super(source, userMessage);
    this.cause = source;
  }
}

/**
 * A skip (`POST …/player/next`, which is never retried) that failed without saying whether the
 * service acted: a timeout, a lost connection or a 5xx. Pressing Next again could skip a second
 * track, so the member is told to look at their player first. `cause` is the transport's error.
 */
export class UnconfirmedSkipError extends UpstreamError {
  override readonly name: string = 'UnconfirmedSkipError';
  readonly userMessage =
    'The music service did not confirm the skip, and it may have skipped already: check your player ' +
    'before you press Next again.';
  constructor(cause: UpstreamError) {
    super(`${cause.message}; the track may have been skipped all the same`, cause.service, { cause });
  }
}

/** 403 with another reason (`ALREADY_PAUSED`, `NO_NEXT_TRACK`, `DEVICE_NOT_CONTROLLABLE`, `UNKNOWN`…). */
export class PlayerRestrictionError extends PlayerError {
  override readonly name: string = 'PlayerRestrictionError';
  constructor(source: HttpError) {
    super(source, playerRestrictionMessage(readErrorInfo(source.body).reason, source.url));
  }
}

/** What a 404 was looking for, read from the path asked for. */
export type NotFoundKind = 'album' | 'artist' | 'playlist';

const NOT_FOUND_KINDS: readonly { path: RegExp; kind: NotFoundKind }[] = [
  { path: /\/v1\/albums\/[^/?#]+/, kind: 'album' },
  { path: /\/v1\/artists\/[^/?#]+/, kind: 'artist' },
  { path: /\/v1\/playlists\/[^/?#]+/, kind: 'playlist' },
];

/** The player's paths: a 404 there that is not `NO_ACTIVE_DEVICE` is the service's "Device not found". */
const PLAYER_PATH = /\/v1\/me\/player(?:[/?#]|$)/;

/**
 * 404 other than `NO_ACTIVE_DEVICE`: the album, artist or playlist does not exist (or is hidden),
 * or on the player, the device asked for is gone. A bare id is read as the kind the command asks
 * for, so the likeliest mistake is an id of another kind (a track's id given as an album): the
 * message names the kind that was asked for.
 */
export class NotFoundError extends MusicHttpError {
  override readonly name: string = 'NotFoundError';
  /** The kind of thing asked for, when the path says so. */
  readonly kind: NotFoundKind | undefined;
  constructor(source: HttpError) {
    const kind = NOT_FOUND_KINDS.find((entry) => entry.path.test(source.url))?.kind;
    super(
      source,
      kind !== undefined
        ? `No ${kind} with this id: check that it is ${withArticle(kind)}’s link, URI or id.`
        : PLAYER_PATH.test(source.url)
          ? 'That device is no longer available: choose another one.'
          : 'Not found: check the link or id.',
    );
    this.kind = kind;
  }
}

/** A change the client sends as several requests: adding to a playlist, saving or removing albums. */
export type BatchedChange = 'playlist-add' | 'albums-save' | 'albums-remove';

const BATCHED_CHANGE_WORDS = {
  'playlist-add': { things: 'items', done: 'added', again: 'Add' },
  'albums-save': { things: 'albums', done: 'saved', again: 'Save' },
  'albums-remove': { things: 'albums', done: 'removed', again: 'Remove' },
} as const satisfies Record<BatchedChange, { things: string; done: string; again: string }>;

/**
 * A change sent as several requests (each applied on its own by the service) failed part-way: the
 * first `applied` of `total` items (or albums) were changed, the others were not. `cause` is the
 * request's error.
 */
export class IncompleteChangeError extends UpstreamError {
  override readonly name: string = 'IncompleteChangeError';
  readonly userMessage: string;
  constructor(
    readonly applied: number,
    readonly total: number,
    cause: unknown,
    readonly change: BatchedChange = 'playlist-add',
  ) {
    const { things, done, again } = BATCHED_CHANGE_WORDS[change];
    super(
      `only ${applied} of ${total} ${things} were ${done} before a request failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      'music',
      { cause },
    );
    const left = total - applied;
    this.userMessage =
      `${onlyTheFirst(applied, total, things, done)}: the music service then failed, so ` +
      `${left === 1 ? 'the last one was' : `the other ${formatCount(left)} were`} not. ` +
      `${again} ${left === 1 ? 'it' : 'those'} again later.`;
  }
}

/**
 * `Only the first 20 of the 25 albums were saved`, `Only the first of your 2 items was added`: what
 * went through of a change sent in several requests. `things` is plural (there are always several).
 */
export function onlyTheFirst(
  applied: number,
  total: number,
  things: string,
  done: string,
  whose: 'the' | 'your' = 'the',
): string {
  return applied === 1
    ? `Only the first of ${whose} ${formatCount(total)} ${things} was ${done}`
    : `Only the first ${formatCount(applied)} of ${whose} ${formatCount(total)} ${things} were ${done}`;
}

/**
 * 403 `Forbidden` on a spec path the service removed for development-mode apps in 2026, while the
 * client speaks the spec's paths (`MUSIC_API_VARIANT=classic`). Says which setting to change. Like
 * `EndpointUnavailableError`, it means "not available", not "broken" (see `isFeatureUnavailable`).
 */
export class EndpointRemovedError extends ForbiddenError {
  override readonly name: string = 'EndpointRemovedError';
  override readonly userMessage: string;
  /** The setting, and the value, that makes the client use the paths that replaced this one. */
  readonly setting = { name: 'MUSIC_API_VARIANT', value: '2026' } as const;

  constructor(
    source: HttpError,
    /** What the endpoint did, e.g. `an artist's top tracks`. */
    readonly feature: string,
  ) {
    super(source);
    const fix = `set ${this.setting.name}=${this.setting.value}`;
    this.message =
      `${this.message}: the music service removed this endpoint (${feature}) for development-mode ` +
      `apps in 2026; ${fix} to use what replaced it (features with no replacement are then reported ` +
      `as unavailable)`;
    // The setting is the owner's to change: it is in the message, which the log shows them.
    this.userMessage = 'That isn’t available on this bot right now; please tell the bot’s owner.';
  }
}

/** The endpoint does not exist for this app (removed from development-mode apps in 2026). No request was made. */
export class EndpointUnavailableError extends UpstreamError {
  override readonly name: string = 'EndpointUnavailableError';
  readonly userMessage: string;
  constructor(
    /** The client method, e.g. `artists.topTracks`. */
    readonly operation: string,
    why: string,
  ) {
    super(`${operation} is not available for this app: ${why}`, 'music');
    this.userMessage = 'That is not available with this bot’s music app.';
  }
}

/** A next/previous URL that does not point at the configured API: not followed, so no token leaves. */
export class UnexpectedPagingUrlError extends UpstreamError {
  override readonly name: string = 'UnexpectedPagingUrlError';
  constructor(origin: string) {
    super(`refused to follow a paging link to another origin (${origin})`, 'music');
  }
}

/** The input is not an id, URI or link of the expected type. */
export class InvalidMusicRefError extends Error {
  override readonly name: string = 'InvalidMusicRefError';
  readonly userMessage: string;
  constructor(
    readonly type: string,
    input: string,
  ) {
    const shown = input.length > 60 ? `${input.slice(0, 57)}…` : input;
    super(`not ${withArticle(type)} id, URI or link: ${JSON.stringify(shown)}`);
    this.userMessage = `That is not ${withArticle(type)} link or id.`;
  }
}

/** What a member reads for a refusal of the player the bot has no words of its own for. */
const PLAYER_REFUSED =
  'The player refused that command right now. Check that something is playing on a device you can ' +
  'control, then try again.';

/**
 * A pause while paused is refused as `Restriction violated` with reason `UNKNOWN` (upstream-facts;
 * the former table of reasons had `ALREADY_PAUSED`). The player has no state endpoint in the
 * contract to check against, so a pause refused for no stated reason says what it most likely means.
 */
function playerRestrictionMessage(reason: string | undefined, url: string): string {
  const pause = /\/me\/player\/pause(?:\?|$)/.test(url);
  switch (reason) {
    case 'ALREADY_PAUSED':
      return 'Playback is already paused.';
    case 'UNKNOWN':
    case undefined:
      return pause ? 'The player refused to pause: playback is most likely paused already.' : PLAYER_REFUSED;
    case 'NO_NEXT_TRACK':
      return 'There is no next track.';
    case 'DEVICE_NOT_CONTROLLABLE':
    case 'REMOTE_CONTROL_DISALLOW':
      return 'That device cannot be controlled remotely.';
    default:
      return PLAYER_REFUSED;
  }
}

/** True for the errors that mean "this app cannot do that" rather than "something failed". */
export function isFeatureUnavailable(
  error: unknown,
): error is EndpointUnavailableError | EndpointRemovedError {
  return error instanceof EndpointUnavailableError || error instanceof EndpointRemovedError;
}

/** Spec paths removed for development-mode apps in 2026 (upstream-facts.md), with what they did. */
const REMOVED_IN_2026: readonly { method?: string; path: RegExp; feature: string }[] = [
  { path: /\/v1\/playlists\/[^/]+\/tracks$/, feature: 'playlist items under /v1/playlists/{id}/tracks' },
  { path: /\/v1\/me\/albums$/, feature: 'saving albums through /v1/me/albums' },
  { method: 'GET', path: /\/v1\/artists$/, feature: 'several artists at once (GET /v1/artists)' },
  { path: /\/v1\/artists\/[^/]+\/top-tracks$/, feature: 'artists’ top tracks' },
];

/**
 * The `EndpointRemovedError` for `error` when it is the 2026 removal's answer (403 with the bare
 * `Forbidden` message, or no body) to a request for a removed spec path; `undefined` otherwise.
 */
export function endpointRemovedError(
  error: unknown,
  method: string,
  pathname: string,
): EndpointRemovedError | undefined {
  if (!(error instanceof HttpError) || error.status !== 403) return undefined;
  if (error instanceof MusicHttpError && error.constructor !== ForbiddenError) return undefined;
  const { message, reason } = readErrorInfo(error.body);
  if (reason !== undefined || (message !== undefined && message !== 'Forbidden')) return undefined;
  const removed = REMOVED_IN_2026.find(
    (entry) => (entry.method === undefined || entry.method === method) && entry.path.test(pathname),
  );
  return removed === undefined ? undefined : new EndpointRemovedError(error, removed.feature);
}

/**
 * Re-types an `HttpError` from the music service. Anything that is not an `HttpError`, or an
 * `HttpError` with no more specific meaning, is returned as is.
 */
export function toMusicError(error: unknown): unknown {
  if (!(error instanceof HttpError) || error instanceof MusicHttpError) return error;
  const { message, reason } = readErrorInfo(error.body);
  switch (error.status) {
    case 429:
      return reason === 'QUOTA_EXCEEDED' ? new QuotaExceededError(error) : error;
    case 401:
      return new MusicAuthError(error);
    case 403:
      if (reason === 'PREMIUM_REQUIRED' || /premium required/i.test(message ?? ''))
        return new PremiumRequiredError(error);
      if (message === 'Insufficient client scope') return new InsufficientScopeError(error);
      // "User not registered in the Developer Dashboard" (JSON), "…the user may not be registered."
      // (plain text), "The user is not registered for this application…" (2026).
      if (/\bnot (?:be )?registered\b/i.test(message ?? '')) return new UserNotRegisteredError(error);
      if (reason !== undefined || /^Player command failed/i.test(message ?? ''))
        return new PlayerRestrictionError(error);
      return new ForbiddenError(error);
    case 404:
      if (reason === 'NO_ACTIVE_DEVICE' || /no active device/i.test(message ?? ''))
        return new NoActiveDeviceError(error);
      return new NotFoundError(error);
    default:
      return error;
  }
}
