/**
 * The upstream transport's error hierarchy. Every message is built from redacted parts only,
 * so an error can be logged or shown without leaking a key, a token, a code or a state.
 */
import type { ZodError } from 'zod';

/** Base class: something went wrong talking to an upstream service. */
export class UpstreamError extends Error {
  override readonly name: string = 'UpstreamError';
  constructor(
    message: string,
    /** Which upstream service, for messages and metrics (`music`, `weather`, ...). */
    readonly service: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The service answered with a status outside 2xx (after any retries). */
export class HttpError extends UpstreamError {
  override readonly name: string = 'HttpError';
  constructor(
    service: string,
    readonly method: string,
    /** The redacted URL. */
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    /** The parsed (JSON) or textual body, if any; may be used by a client to map to its own errors. */
    readonly body: unknown,
    /** The service's own message, redacted, when the body carried one. */
    readonly detail: string | undefined,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    const path = safePath(url);
    super(`${method} ${path} failed: ${status} ${statusText}${detail ? ` (${detail})` : ''}`, service);
  }
}

/** The service asked us to slow down, and the wait is longer than we are willing to block for. */
export class RateLimitError extends UpstreamError {
  override readonly name: string = 'RateLimitError';
  /** The wait in whole seconds, rounded up (the unit of `Retry-After`). */
  readonly retryAfterSeconds: number | undefined;
  constructor(
    service: string,
    readonly method: string,
    readonly url: string,
    /** How long the service asked us to wait, when it said so. */
    readonly retryAfterMs: number | undefined,
    /**
     * True when this call was never sent: an earlier 429 paused every call to the service (see
     * `RateLimitGate`) for longer than the transport waits inside a call.
     */
    readonly paused: boolean = false,
  ) {
    super(
      (paused
        ? `${method} ${safePath(url)} was not sent: the ${service} service asked us to slow down`
        : `${method} ${safePath(url)} was rate limited by the ${service} service`) +
        (retryAfterMs === undefined ? '' : `; try again in ${formatWait(retryAfterMs)}`),
      service,
    );
    this.retryAfterSeconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
  }
}

/** No answer within the time limit. */
export class TimeoutError extends UpstreamError {
  override readonly name: string = 'TimeoutError';
  constructor(
    service: string,
    readonly method: string,
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} ${safePath(url)} timed out after ${timeoutMs} ms`, service);
  }
}

/** The connection failed (refused, reset, DNS). */
export class NetworkError extends UpstreamError {
  override readonly name: string = 'NetworkError';
  constructor(
    service: string,
    readonly method: string,
    readonly url: string,
    readonly code: string | undefined,
  ) {
    super(
      `${method} ${safePath(url)} could not reach the ${service} service${code ? ` (${code})` : ''}`,
      service,
    );
  }
}

/**
 * No answer, or a fault on the service's side (a 5xx, also after the retries): the service may
 * have acted all the same, and reads to a member as "not answering".
 */
export function unanswered(error: unknown): error is UpstreamError {
  return (
    error instanceof TimeoutError ||
    error instanceof NetworkError ||
    (error instanceof HttpError && error.status >= 500)
  );
}

/** The service answered 2xx with a body that does not match our schema. */
export class ResponseValidationError extends UpstreamError {
  override readonly name: string = 'ResponseValidationError';
  constructor(
    service: string,
    readonly method: string,
    readonly url: string,
    cause: ZodError,
  ) {
    const first = cause.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    super(`${method} ${safePath(url)} returned an unexpected response: ${first}`, service, { cause });
  }
}

function safePath(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}

/** "42 s", "5 min", "3 h 49 min": a wait a person can read. */
export function formatWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
