/**
 * The weather client's errors. HTTP failures keep everything `HttpError` carries (status, redacted
 * URL, the service's own message) and add a class per meaning, so callers can tell "city not found"
 * from "the key is wrong" with `instanceof`. A 429 that outlasts the retries stays the transport's
 * `RateLimitError`. No message is built from anything but redacted parts.
 */
import { HttpError, NetworkError, TimeoutError, UpstreamError } from '../http/errors.js';
import { codSchema, errorBodySchema } from './schemas.js';

export { RateLimitError } from '../http/errors.js';

/** The caller passed a value the service would refuse; nothing was sent. */
export class WeatherParameterError extends Error {
  override readonly name: string = 'WeatherParameterError';
  constructor(
    /** The offending parameter, as the caller named it. */
    readonly parameter: string,
    message: string,
  ) {
    super(`Invalid weather request: ${message}`);
  }
}

/** The service refused the request with a status we give a meaning to. */
export class WeatherApiError extends HttpError {
  override readonly name: string = 'WeatherApiError';
  constructor(source: HttpError) {
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
  }

  /**
   * Whether the answer is the service's own error body (`cod` and `message`, the contract), rather
   * than the same status from something in front of it (a proxy's or gateway's page).
   */
  get fromService(): boolean {
    return serviceErrorSchema.safeParse(this.body).success;
  }
}

const serviceErrorSchema = errorBodySchema.extend({ cod: codSchema });

/** 400: bad input (`wrong latitude`, `Nothing to geocode`, ...). */
export class WeatherBadRequestError extends WeatherApiError {
  override readonly name: string = 'WeatherBadRequestError';
}

/** 401: the key is missing, wrong, not yet active, or its plan lacks the product. */
export class WeatherInvalidKeyError extends WeatherApiError {
  override readonly name: string = 'WeatherInvalidKeyError';
  /**
   * Whether the product asked for needs a paid plan (hourly forecast, history, statistics, bulk
   * files): then a valid key on a plan without it gets this same 401, and the message says so.
   */
  readonly paidProduct: boolean;
  constructor(source: HttpError, paidProduct = false) {
    super(source);
    this.paidProduct = paidProduct;
    if (paidProduct) {
      this.message +=
        '; this product needs a paid plan: a valid key whose plan lacks it is refused the same way';
    }
  }
}

/** 403: insufficient permission. */
export class WeatherForbiddenError extends WeatherApiError {
  override readonly name: string = 'WeatherForbiddenError';
}

/** 404: no such thing, e.g. `city not found` for a name, or an unknown bulk file. */
export class WeatherNotFoundError extends WeatherApiError {
  override readonly name: string = 'WeatherNotFoundError';
}

/** A bulk file that is not valid gzip, JSON lines or CSV. */
export class BulkFormatError extends UpstreamError {
  override readonly name: string = 'BulkFormatError';
  constructor(
    readonly file: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`Bulk file ${file} is malformed: ${detail}`, 'weather', options);
  }
}

const BY_STATUS: Readonly<Record<number, new (source: HttpError) => WeatherApiError>> = {
  400: WeatherBadRequestError,
  401: WeatherInvalidKeyError,
  403: WeatherForbiddenError,
  404: WeatherNotFoundError,
};

/**
 * Gives an `HttpError` its weather meaning; anything else passes through unchanged. `paidProduct`:
 * the request was for a product of the paid plans, so a 401 may mean the plan, not the key.
 */
export function toWeatherError(error: unknown, paidProduct = false): unknown {
  if (error instanceof HttpError && !(error instanceof WeatherApiError)) {
    if (error.status === 401) return new WeatherInvalidKeyError(error, paidProduct);
    const Mapped = BY_STATUS[error.status];
    if (Mapped) return new Mapped(error);
  }
  return error;
}

/** Turns a failure while reading a bulk body (gzip, socket, stall) into a typed, redacted error. */
export function toBulkStreamError(error: unknown, file: string, url: string, timeoutMs: number): Error {
  if (error instanceof UpstreamError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new BulkFormatError(file, `not valid gzip (${code})`);
  }
  const name = error instanceof Error ? error.name : '';
  if (code === 'UND_ERR_BODY_TIMEOUT' || name === 'TimeoutError' || name === 'AbortError') {
    return new TimeoutError('weather', 'GET', url, timeoutMs);
  }
  return new NetworkError('weather', 'GET', url, typeof code === 'string' ? code : undefined);
}
