/**
 * The music service's own errors, built on the transport's hierarchy. Each carries a `userMessage`
 * when it is an expected problem a member can act on (premium required, no active device…), so the
 * bot can show it as a user error instead of a generic failure.
 */
import { HttpError, UpstreamError } from '../http/errors.js';

/** The parts of an error body the service uses: `{error:{status,message,reason}}` or the OAuth `{error,error_description}`. */
export interface MusicErrorInfo {
  message: string | undefined;
  reason: string | undefined;
  /** OAuth error code from the token endpoint (`invalid_grant`, `invalid_client`, …). */
  oauthError: string | undefined;
}

export function readErrorInfo(body: unknown): MusicErrorInfo {
  const info: MusicErrorInfo = { message: undefined, reason: undefined, oauthError: undefined };
  if (typeof body !== 'object' || body === null) return info;
  const record = body as Record<string, unknown>;
  const error = record['error'];
  if (typeof error === 'object' && error !== null) {
    const inner = error as Record<string, unknown>;
    if (typeof inner['message'] === 'string') info.message = inner['message'];
    if (typeof inner['reason'] === 'string') info.reason = inner['reason'];
  } else if (typeof error === 'string') {
    info.oauthError = error;
    if (typeof record['error_description'] === 'string') info.message = record['error_description'];
  }
  return info;
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
    super(source, 'Your music account link needs renewing: link it again.');
  }
}

/** 403 `Insufficient client scope`: the member granted fewer permissions than this call needs. */
export class InsufficientScopeError extends MusicHttpError {
  override readonly name: string = 'InsufficientScopeError';
  constructor(source: HttpError) {
    super(source, 'This needs a permission your music account link does not include: link it again.');
  }
}

/** 403 on an account that is not on the app's development-mode allow-list. */
export class UserNotRegisteredError extends MusicHttpError {
  override readonly name: string = 'UserNotRegisteredError';
  constructor(source: HttpError) {
    super(source, 'Your music account is not on this app’s user list; ask the bot owner to add you.');
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
  constructor(source: HttpError) {
    super(source, 'No active device: start playing on one of your devices first.');
  }
}

/** 403 with another reason (`ALREADY_PAUSED`, `NO_NEXT_TRACK`, `DEVICE_NOT_CONTROLLABLE`, `UNKNOWN`…). */
export class PlayerRestrictionError extends PlayerError {
  override readonly name: string = 'PlayerRestrictionError';
  constructor(source: HttpError) {
    super(source, playerRestrictionMessage(readErrorInfo(source.body).reason));
  }
}

/** 404 on anything but the player: the album, artist or playlist does not exist (or is hidden). */
export class NotFoundError extends MusicHttpError {
  override readonly name: string = 'NotFoundError';
  constructor(source: HttpError) {
    super(source, 'Not found: check the link or id.');
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
    super(`not a ${type} id, URI or link: ${JSON.stringify(shown)}`);
    this.userMessage = `That is not a ${type} link or id.`;
  }
}

function playerRestrictionMessage(reason: string | undefined): string {
  switch (reason) {
    case 'ALREADY_PAUSED':
      return 'Playback is already paused.';
    case 'NO_NEXT_TRACK':
      return 'There is no next track.';
    case 'DEVICE_NOT_CONTROLLABLE':
    case 'REMOTE_CONTROL_DISALLOW':
      return 'That device cannot be controlled remotely.';
    default:
      return 'The player refused that command right now.';
  }
}

/**
 * Re-types an `HttpError` from the music service. Anything that is not an `HttpError`, or an
 * `HttpError` with no more specific meaning, is returned as is.
 */
export function toMusicError(error: unknown): unknown {
  if (!(error instanceof HttpError) || error instanceof MusicHttpError) return error;
  const { message, reason } = readErrorInfo(error.body);
  switch (error.status) {
    case 401:
      return new MusicAuthError(error);
    case 403:
      if (reason === 'PREMIUM_REQUIRED' || /premium required/i.test(message ?? ''))
        return new PremiumRequiredError(error);
      if (message === 'Insufficient client scope') return new InsufficientScopeError(error);
      if (/not registered/i.test(message ?? '')) return new UserNotRegisteredError(error);
      if (reason !== undefined || /^Player command failed/i.test(message ?? ''))
        return new PlayerRestrictionError(error);
      return error;
    case 404:
      if (reason === 'NO_ACTIVE_DEVICE' || /no active device/i.test(message ?? ''))
        return new NoActiveDeviceError(error);
      return new NotFoundError(error);
    default:
      return error;
  }
}
