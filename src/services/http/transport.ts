/**
 * The upstream transport: one undici agent per service, timeouts, a retry policy for transient
 * faults, 429 handling, typed errors and redaction. The music and weather clients are built on it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { HttpError, NetworkError, RateLimitError, ResponseValidationError, TimeoutError } from './errors.js';
import { redactHeaders, redactText, redactUrl, redactValue } from './redact.js';

export type QueryValue = string | number | boolean | undefined | null;

export interface RateLimitPolicy {
  /** Longest `Retry-After` we wait out inside a call; anything longer fails at once with the wait. */
  maxWaitMs: number;
  /** Attempts in all (first try included) while the service keeps answering 429. */
  maxAttempts: number;
  /** Exponential backoff when 429 carries no `Retry-After`: base, doubled each time, capped, full jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
}

/**
 * A pause shared by every caller of one service after a 429: the transport asks it before each
 * request and tells it about every `Retry-After` it receives. Backed by memory for one process
 * (`createMemoryRateGate`) or by storage for all of them (`createStorageRateGate`).
 */
export interface RateLimitGate {
  /** Epoch milliseconds until which calls must wait; `undefined` (or a past time) when calls may go. */
  blockedUntil(): Promise<number | undefined>;
  /** Pauses calls until `untilEpochMs`; never shortens a longer pause already in place. */
  block(untilEpochMs: number): Promise<void>;
}

export interface TransportOptions {
  /** Service name used in errors and logs (`music`, `weather`). */
  service: string;
  /**
   * The time one call may take in all: every attempt, the pauses between them and any wait for a
   * rate limit share it, so a stalled service costs a caller this long at most, never this long per try.
   */
  timeoutMs?: number;
  /**
   * The time one try may take; by default half of `timeoutMs` when the call may be retried, so a try
   * that stalls (a dead connection, a stuck server) leaves time for one more. Never more than what
   * is left of the call.
   */
  attemptTimeoutMs?: number;
  /** Retries for 5xx and network faults on idempotent methods. Never for 4xx other than 429. */
  retries?: number;
  retryBaseMs?: number;
  rateLimit?: Partial<RateLimitPolicy>;
  /** Secrets known to the caller (key, client secret); removed from any error text. */
  secrets?: () => Iterable<string>;
  /** Extracts the service's own error message from an error body. */
  describeError?: (body: unknown) => string | undefined;
  /** Called after every HTTP exchange, with a redacted URL: for debug logs and metrics. */
  onExchange?: (info: ExchangeInfo) => void;
  /** The undici dispatcher to use; by default the transport owns an Agent. */
  dispatcher?: Dispatcher;
  /**
   * Shared pause after a 429. Before each request: a pause up to `rateLimit.maxWaitMs` is waited
   * out, a longer one fails at once with `RateLimitError` (nothing is sent). Every 429 with
   * `Retry-After` extends it. Without a gate, only the call that got the 429 waits.
   */
  gate?: RateLimitGate;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The clock the gate's pauses are measured with (epoch milliseconds). */
  now?: () => number;
}

export interface ExchangeInfo {
  service: string;
  method: string;
  url: string;
  status: number | undefined;
  durationMs: number;
  attempt: number;
}

export const DEFAULT_TRANSPORT_OPTIONS = {
  timeoutMs: 10_000,
  retries: 2,
  retryBaseMs: 250,
  rateLimit: {
    maxWaitMs: 10_000,
    maxAttempts: 4,
    backoffBaseMs: 500,
    backoffMaxMs: 8_000,
  },
} as const satisfies Required<Pick<TransportOptions, 'timeoutMs' | 'retries' | 'retryBaseMs'>> & {
  rateLimit: RateLimitPolicy;
};

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface RequestSpec {
  method?: HttpMethod;
  /** Absolute URL, or a path appended to `baseUrl`. */
  url: string;
  baseUrl?: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  /** JSON body. */
  json?: unknown;
  /** `application/x-www-form-urlencoded` body. */
  form?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the transport's timeout for this call. */
  timeoutMs?: number;
  /**
   * `false` for a PUT or DELETE that must not be sent twice (a playlist reorder moves its items
   * again): no retry after a 5xx, a network fault or a try that ran out of time, since the
   * service may have applied it. A 429 is still retried (nothing was applied).
   */
  idempotent?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  url: string;
}

const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * `error.reason`s of a 429 that says a quota is used up rather than that calls come too fast: the
 * music service's development-mode quota, counted per developer account (upstream-facts, Jul 2026).
 * Waiting seconds cannot mend it and every retry spends more of it, so such a 429 is not retried.
 * The weather service's 429 body (`{cod, message}`) never has this shape.
 */
const QUOTA_REASONS: ReadonlySet<string> = new Set(['QUOTA_EXCEEDED']);

function isQuotaExhausted(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body;
  if (typeof error !== 'object' || error === null || !('reason' in error)) return false;
  return typeof error.reason === 'string' && QUOTA_REASONS.has(error.reason);
}

/** Parses `Retry-After` (delta-seconds or HTTP-date, RFC 9110 §10.2.3) into milliseconds. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export function buildUrl(spec: Pick<RequestSpec, 'url' | 'baseUrl' | 'query'>): URL {
  const url = /^https?:\/\//.test(spec.url) ? new URL(spec.url) : new URL(spec.baseUrl + spec.url);
  for (const [name, value] of Object.entries(spec.query ?? {})) {
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  }
  return url;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readBody(body: Readable, headers: Record<string, string>): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  const looksJson = (headers['content-type'] ?? '').includes('json') || /^\s*[[{]/.test(text);
  if (looksJson) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON after all: keep the text, truncated.
    }
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** An HTTP client for one upstream service. */
export class Transport {
  readonly service: string;
  private readonly options: TransportOptions;
  private readonly policy: RateLimitPolicy;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(options: TransportOptions) {
    this.service = options.service;
    this.options = options;
    this.policy = { ...DEFAULT_TRANSPORT_OPTIONS.rateLimit, ...options.rateLimit };
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ?? new Agent({ connections: 16, keepAliveTimeout: 10_000, connectTimeout: 5_000 });
    this.sleep = options.sleep ?? ((ms) => delay(ms));
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
  }

  /** Sends a request and returns the parsed body (`undefined` for an empty one), validated by `schema`. */
  async json<S extends z.ZodType>(spec: RequestSpec, schema: S): Promise<z.output<S>> {
    const response = await this.send(spec);
    let body: unknown;
    try {
      body = await readBody(response.body, response.headers);
    } catch (error) {
      // The body stalled past the time limit, or the connection dropped half-way through it.
      if (spec.signal?.aborted) throw error;
      const timeoutMs = spec.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TRANSPORT_OPTIONS.timeoutMs;
      throw this.wrapFault(error, spec.method ?? 'GET', response.url, timeoutMs);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new ResponseValidationError(this.service, spec.method ?? 'GET', response.url, parsed.error);
    }
    return parsed.data;
  }

  /** Sends a request whose answer body, if any, is ignored (204, or 200 with anything). */
  async empty(spec: RequestSpec): Promise<void> {
    const response = await this.send(spec);
    response.body.resume();
    await new Promise<void>((resolve) => {
      response.body.once('end', resolve);
      response.body.once('close', resolve);
      response.body.once('error', () => resolve());
    });
  }

  /**
   * Sends a request and hands back the open body stream (for large downloads). The time limit
   * covers the wait for the response headers only; the body may then take as long as it needs,
   * as long as it never stalls for longer than the time limit between two chunks.
   */
  async stream(spec: RequestSpec): Promise<RawResponse> {
    return this.send(spec, 'headers');
  }

  /**
   * Sends with retries: 5xx and network faults on idempotent methods with backoff; 429 with
   * `Retry-After` when short, with exponential backoff and full jitter when absent. A 429 whose body
   * says a quota is used up (`QUOTA_REASONS`) is not retried: it is thrown as an `HttpError` with its
   * redacted body, for the service's client to say what it means. Throws a typed, redacted error
   * otherwise.
   */
  async send(spec: RequestSpec, deadline: 'response' | 'headers' = 'response'): Promise<RawResponse> {
    const method = spec.method ?? 'GET';
    const url = buildUrl(spec);
    const shownUrl = redactUrl(url);
    const retries =
      IDEMPOTENT.has(method) && spec.idempotent !== false
        ? (this.options.retries ?? DEFAULT_TRANSPORT_OPTIONS.retries)
        : 0;
    const timeoutMs = spec.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TRANSPORT_OPTIONS.timeoutMs;
    const retryBaseMs = this.options.retryBaseMs ?? DEFAULT_TRANSPORT_OPTIONS.retryBaseMs;

    // One deadline for the whole call: retries and waits only use what is left of it.
    const deadlineAt = performance.now() + timeoutMs;
    const left = () => deadlineAt - performance.now();
    const attemptMs =
      spec.timeoutMs === undefined && this.options.attemptTimeoutMs !== undefined
        ? this.options.attemptTimeoutMs
        : retries > 0
          ? Math.ceil(timeoutMs / 2)
          : timeoutMs;
    let faults = 0;
    let limited = 0;
    // The end of the last pause this call has already sat out, so it is not waited twice.
    let waitedUntil = Number.NEGATIVE_INFINITY;
    for (let attempt = 1; ; attempt++) {
      waitedUntil = await this.passGate(method, shownUrl, waitedUntil, left());
      const started = performance.now();
      let response: Dispatcher.ResponseData;
      try {
        if (left() <= 0) throw new DOMException('The operation timed out.', 'TimeoutError');
        response = await this.exchange(spec, method, url, Math.ceil(Math.min(attemptMs, left())), deadline);
      } catch (error) {
        this.report(method, shownUrl, undefined, started, attempt);
        if (spec.signal?.aborted) throw error;
        const typed = this.wrapFault(error, method, shownUrl, timeoutMs);
        const pause = this.jitter(retryBaseMs * 2 ** faults);
        if (faults < retries && pause < left()) {
          faults++;
          await this.sleep(pause);
          continue;
        }
        throw typed;
      }
      const headers = flattenHeaders(response.headers);
      this.report(method, shownUrl, response.statusCode, started, attempt);
      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        return { status, headers, body: response.body, url: shownUrl };
      }
      // The status says what happened; a body that cannot be read only loses the service's message.
      const body = await readBody(response.body, headers).catch(() => undefined);
      // An upstream may echo the credential it was sent; strip this request's own one too.
      const credential = /^\S+\s+(\S+)$/.exec(spec.headers?.['authorization'] ?? '')?.[1];

      if (status === 429 && isQuotaExhausted(body)) {
        // A pause the service names still holds back everyone sharing the gate, as for any 429.
        const retryAfterMs = parseRetryAfter(headers['retry-after']);
        if (retryAfterMs) await this.closeGate(this.now() + retryAfterMs);
        throw this.httpError(method, shownUrl, status, body, headers, credential ? [credential] : []);
      }
      if (status === 429) {
        limited++;
        const retryAfterMs = parseRetryAfter(headers['retry-after']);
        const wait =
          retryAfterMs ??
          this.jitter(Math.min(this.policy.backoffMaxMs, this.policy.backoffBaseMs * 2 ** (limited - 1)));
        // The wait holds back everyone sharing the gate too, whether or not this call waits it out:
        // the service's `Retry-After`, or without one (the weather service's usual 429, and often the
        // music service's) this call's own backoff, so the others do not keep hitting a blocked key.
        // `Retry-After: 0` asks for no pause.
        const until = wait ? this.now() + wait : undefined;
        if (until !== undefined) await this.closeGate(until);
        if (retryAfterMs !== undefined && retryAfterMs > Math.min(this.policy.maxWaitMs, left())) {
          throw new RateLimitError(this.service, method, shownUrl, retryAfterMs);
        }
        if (limited >= this.policy.maxAttempts || wait >= left()) {
          throw new RateLimitError(this.service, method, shownUrl, retryAfterMs);
        }
        await this.sleep(wait);
        if (until !== undefined) waitedUntil = Math.max(waitedUntil, until);
        continue;
      }
      if (status >= 500 && faults < retries) {
        const pause = this.jitter(retryBaseMs * 2 ** faults);
        if (pause < left()) {
          faults++;
          await this.sleep(pause);
          continue;
        }
      }
      throw this.httpError(method, shownUrl, status, body, headers, credential ? [credential] : []);
    }
  }

  /**
   * Waits out a shared pause that ends within the bound (and within what is left of the call's
   * time), or fails at once with `RateLimitError` when it ends later; returns the end of the pause now sat out. A gate that cannot be read (storage
   * down) lets the call through: a lost pause costs at most one more 429.
   */
  private async passGate(method: string, url: string, waitedUntil: number, leftMs: number): Promise<number> {
    const gate = this.options.gate;
    if (gate === undefined) return waitedUntil;
    let until: number | undefined;
    try {
      until = await gate.blockedUntil();
    } catch {
      return waitedUntil;
    }
    if (until === undefined || until <= waitedUntil) return waitedUntil;
    const remaining = until - this.now();
    if (remaining <= 0) return waitedUntil;
    if (remaining > Math.min(this.policy.maxWaitMs, leftMs)) {
      throw new RateLimitError(this.service, method, url, remaining, true);
    }
    await this.sleep(remaining);
    return until;
  }

  private async closeGate(until: number): Promise<void> {
    try {
      await this.options.gate?.block(until);
    } catch {
      // The pause still applies to this call; other callers will get their own 429.
    }
  }

  /** Releases the connection pool (when the transport owns it). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private async exchange(
    spec: RequestSpec,
    method: HttpMethod,
    url: URL,
    timeoutMs: number,
    deadline: 'response' | 'headers',
  ): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
    let body: string | null = null;
    if (spec.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.json);
    } else if (spec.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(spec.form).toString();
    }
    // `response`: the limit covers the whole exchange, body included (it stays attached to the body).
    // `headers`: it is lifted once the headers are in; undici's `bodyTimeout` still bounds each stall.
    const controller = deadline === 'headers' ? new AbortController() : undefined;
    const timer = controller
      ? setTimeout(
          () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
          timeoutMs,
        )
      : undefined;
    const timeout = controller ? controller.signal : AbortSignal.timeout(timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    try {
      return await undiciRequest(url, {
        method,
        headers,
        body,
        signal,
        dispatcher: this.dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  private httpError(
    method: string,
    url: string,
    status: number,
    body: unknown,
    headers: Record<string, string>,
    requestSecrets: readonly string[] = [],
  ): HttpError {
    const secrets = [...(this.options.secrets?.() ?? []), ...requestSecrets];
    const raw = this.options.describeError?.(body);
    const detail = raw === undefined ? undefined : redactText(raw, secrets);
    // The error may be logged whole (pino serialises every field): keep only redacted copies.
    return new HttpError(
      this.service,
      method,
      url,
      status,
      STATUS_TEXT[status] ?? 'Error',
      redactValue(body, secrets),
      detail,
      redactHeaders(headers) as Record<string, string>,
    );
  }

  private wrapFault(error: unknown, method: string, url: string, timeoutMs: number): Error {
    const name = error instanceof Error ? error.name : '';
    const code = (error as { code?: unknown } | null)?.code;
    if (
      name === 'TimeoutError' ||
      name === 'AbortError' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT'
    ) {
      return new TimeoutError(this.service, method, url, timeoutMs);
    }
    return new NetworkError(this.service, method, url, typeof code === 'string' ? code : undefined);
  }

  private jitter(ms: number): number {
    return Math.round(this.random() * ms);
  }

  private report(method: string, url: string, status: number | undefined, started: number, attempt: number) {
    this.options.onExchange?.({
      service: this.service,
      method,
      url,
      status,
      durationMs: Math.round(performance.now() - started),
      attempt,
    });
  }
}
