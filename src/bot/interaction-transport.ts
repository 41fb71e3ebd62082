import { Pool, type Dispatcher } from 'undici';
import {
  DefaultUserAgent,
  DiscordAPIError,
  RateLimitError,
  REST,
  RESTJSONErrorCodes,
  type DiscordErrorData,
  type InternalRequest,
  type OAuthErrorData,
  type RateLimitData,
  type ResponseLike,
} from 'discord.js';

/** What the transport hands a request to when it does not send it itself. */
export type Fallback = (request: InternalRequest) => Promise<ResponseLike>;

/**
 * The interaction responses, sent straight through an undici pool of their own: acknowledgements
 * (`POST /interactions/{id}/{token}/callback`) and the interaction webhook (`editReply`, `followUp`,
 * `deleteReply`, `fetchReply`: `/webhooks/{application id}/{token}...`, sent without the bot's
 * authorization).
 *
 * Why not @discordjs/rest, as for everything else: per request it resolves the request, finds or
 * makes a rate-limit queue for the route's major parameter (for the webhook routes that is the
 * interaction token, so a new queue for every interaction), arms an abort controller and a timer,
 * and reads the answer through a stream. On a deferred command (two requests) that machinery was
 * most of the bot's own CPU, while Discord sets no global limit on these routes and each token
 * serves one interaction, so all there is to learn of a token's bucket is when an answer says it
 * is used up (`X-RateLimit-Remaining: 0`): the next request on that token then waits for its
 * `X-RateLimit-Reset-After`, rather than earning a 429 (each counted towards Discord's limit on
 * invalid requests). So only the common case is taken here, and everything else goes to the
 * library unchanged:
 * - not taken: files (chart uploads), a request with an abort signal or a dispatcher of its own;
 * - a 2xx: handed back, read as the library reads it (JSON when it says so, else the bytes);
 * - a 4xx other than 429: thrown as the library throws it (`DiscordAPIError`, same fields), and not
 *   sent again (a refused request counts towards Discord's invalid-request limit);
 * - a 429: its wait read as {@link readRateLimit} reads it, and the same rate-limit data goes to the
 *   same `rejectOnRateLimit` (so one with no wait anywhere, or asking for over a minute, fails at
 *   once with the library's `RateLimitError`); otherwise its wait is waited out and the request
 *   handed to the library, which sends it again;
 * - a 5xx, a network error or no answer within the REST `timeout` (15 s by default): handed to the
 *   library, which retries it as it retries any request, except that a follow-up whose first
 *   sending may have reached Discord is not sent again, and an acknowledgement sent again after
 *   one that may have reached Discord takes Discord's "already acknowledged" as done (see
 *   `#resend`).
 * Requests on one interaction token go out in the order they were made, each once the one before
 * is answered, as the library's per-token queue sends them.
 *
 * Why not undici's `request()`: it reads the answer through a stream too. The dispatch handler
 * below collects the few hundred bytes of an answer itself.
 *
 * The URL carries the interaction token, as the library's does: `DiscordAPIError.url` and
 * `RateLimitError.majorParameter` are the fields the log already censors. Nothing here logs.
 */
export class InteractionTransport {
  readonly #pool: Pool;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #headers: Record<string, string>;
  readonly #options: REST['options'];
  #closing: Promise<void> | undefined;
  /** The last request queued per interaction token (removed once it settles with none after it). */
  readonly #tails = new Map<string, Promise<ResponseLike>>();
  /** When the bucket of a token an answer said was used up fills again (removed then). */
  readonly #exhausted = new Map<string, number>();

  constructor(options: REST['options']) {
    this.#options = options;
    const api = new URL(options.api);
    this.#origin = api.origin;
    this.#basePath = `${api.pathname.replace(/\/$/, '')}/v${options.version}`;
    this.#headers = {
      ...options.headers,
      'User-Agent': `${DefaultUserAgent} ${options.userAgentAppendix}`.trim(),
    };
    this.#pool = new Pool(api.origin, {
      headersTimeout: options.timeout,
      bodyTimeout: options.timeout,
    });
  }

  /** Whether {@link send} takes this request itself rather than handing it to the library. */
  static takes(request: InternalRequest): boolean {
    return (
      request.auth === false &&
      !request.files?.length &&
      !request.passThroughBody &&
      !request.appendToFormData &&
      request.signal === undefined &&
      request.dispatcher === undefined &&
      request.versioned !== false &&
      (request.fullRoute.startsWith('/interactions/') || request.fullRoute.startsWith('/webhooks/'))
    );
  }

  /** Sends the request, or hands it to `fallback` (see the class comment for when). */
  send(request: InternalRequest, fallback: Fallback): Promise<ResponseLike> {
    if (!InteractionTransport.takes(request)) return fallback(request);
    if (!request.fullRoute.startsWith('/webhooks/')) return this.#send(request, fallback);
    // /webhooks/{application id}/{token}...: one at a time per token, after its bucket refills.
    const token = request.fullRoute.split('/', 4)[3] ?? '';
    const go = () => this.#afterRefill(token, () => this.#send(request, fallback, token));
    const before = this.#tails.get(token);
    const sent = before ? before.then(go, go) : go();
    this.#tails.set(token, sent);
    const forget = () => {
      if (this.#tails.get(token) === sent) this.#tails.delete(token);
    };
    sent.then(forget, forget);
    return sent;
  }

  /** Closes the pool; safe to call again (a failed login has discord.js destroy the client first). */
  close(): Promise<void> {
    return (this.#closing ??= this.#pool.close());
  }

  /** Runs `send` at once, or once the token's bucket, said to be used up, has refilled. */
  #afterRefill(token: string, send: () => Promise<ResponseLike>): Promise<ResponseLike> {
    const refillsAt = this.#exhausted.get(token);
    if (refillsAt === undefined) return send();
    this.#exhausted.delete(token);
    const wait = refillsAt - performance.now();
    return wait > 0 ? new Promise((wake) => setTimeout(wake, wait)).then(send) : send();
  }

  /** Notes a token whose answer says its bucket is used up (`X-RateLimit-Remaining: 0`). */
  #noteBucket(token: string, answer: Answer): void {
    if (answer.header('x-ratelimit-remaining')?.trim() !== '0') return;
    const after = seconds(answer.header('x-ratelimit-reset-after'));
    // A wait over a minute is not held for: the next request goes, and a 429 it earns meets the
    // same `rejectOnRateLimit` as any (which refuses waits that long) rather than stalling the reply.
    if (after === undefined || after === 0 || after > 60) return;
    const { offset } = this.#options;
    const ms = after * 1000 + (typeof offset === 'number' ? Math.max(0, offset) : 0);
    this.#exhausted.set(token, performance.now() + ms);
    // Forgotten once refilled, whether or not another request on the token comes.
    setTimeout(() => {
      if ((this.#exhausted.get(token) ?? Infinity) <= performance.now()) this.#exhausted.delete(token);
    }, ms).unref();
  }

  async #send(request: InternalRequest, fallback: Fallback, token?: string): Promise<ResponseLike> {
    const method = request.method.toUpperCase();
    const query = request.query?.toString();
    const path = `${this.#basePath}${request.fullRoute}${query ? `?${query}` : ''}`;
    const url = `${this.#origin}${path}`;
    const hasBody = request.body != null && method !== 'GET' && method !== 'HEAD';
    const headers: Record<string, string> = {
      ...request.headers,
      ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
      ...this.#headers,
    };
    let answer: Answer;
    try {
      answer = await exchange(this.#pool, {
        path,
        method,
        headers,
        body: hasBody ? JSON.stringify(request.body) : null,
      });
    } catch (error) {
      if (neverSent(error)) return fallback(request);
      // A follow-up (`POST /webhooks/{application id}/{token}`) that may have reached Discord is
      // not sent again: Discord has no idempotency key for it (`enforce_nonce` is for channel
      // messages only), so a second sending posts the message twice, in front of the member. Failed
      // here, the member hears of an error instead; an edit or a deletion sent twice does no harm.
      // A 5xx still goes to the library below: Discord (or its edge) answered that the request
      // failed, and its docs ask for a retry (502 "wait a bit and retry").
      if (method === 'POST' && isFollowUp(request.fullRoute)) throw error;
      return this.#resend(request, fallback);
    }
    const { status } = answer;
    if (token !== undefined) this.#noteBucket(token, answer);
    if (status >= 200 && status < 300) return answer.response();
    if (status === 429) return this.#rateLimited(request, method, url, answer, fallback);
    if (status >= 400 && status < 500) {
      // A refusal that is not Discord's JSON error (a proxy's HTML page, a body cut short) is still
      // a refusal: thrown with its status and no code, rather than as a parse error.
      let data: unknown;
      try {
        data = answer.parse();
      } catch {
        data = undefined;
      }
      const raw = (
        typeof data === 'object' && data !== null && !(data instanceof ArrayBuffer) ? data : {}
      ) as DiscordErrorData | OAuthErrorData;
      throw new DiscordAPIError(raw, 'code' in raw ? raw.code : raw.error, status, method, url, {
        body: request.body,
        files: request.files,
      });
    }
    return this.#resend(request, fallback);
  }

  /**
   * Hands a request whose first sending may have reached Discord (no answer, a broken connection,
   * a 5xx) to the library, which sends it again. An acknowledgement that did reach Discord is
   * refused the second time with 400 / 40060 "Interaction has already been acknowledged": thrown,
   * discord.js would leave the interaction neither deferred nor replied, and the bot's error reply
   * would acknowledge again, be refused again, and never edit the member's "thinking…". That
   * refusal says the first sending was taken, so it is answered as Discord answered that one (204,
   * no body). Only here, after a sending that may have landed: a first sending refused with 40060
   * is a real second acknowledgement, and is thrown. Not with `with_response=true`, whose answer
   * (the callback's resource) is not ours to make up; the bot never asks for it.
   */
  async #resend(request: InternalRequest, fallback: Fallback): Promise<ResponseLike> {
    if (!isCallback(request.fullRoute) || request.query?.get('with_response') === 'true')
      return fallback(request);
    try {
      return await fallback(request);
    } catch (error) {
      if (
        error instanceof DiscordAPIError &&
        error.code === RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged
      )
        return new Response(null, { status: 204 });
      throw error;
    }
  }

  /**
   * A 429, its wait and scope read by {@link readRateLimit}, and given as the library gives one on
   * these routes: the same rate-limit data goes to the same `rejectOnRateLimit` (a 429 with no wait
   * anywhere, or one over a minute, fails here with the library's `RateLimitError`); otherwise the
   * wait it asks for is waited out and the request handed to the library, which sends it again and
   * deals with any limit after that.
   */
  async #rateLimited(
    request: InternalRequest,
    method: string,
    url: string,
    answer: Answer,
    fallback: Fallback,
  ): Promise<ResponseLike> {
    const route = (REST as unknown as RouteData).generateRouteData?.(request.fullRoute, request.method);
    if (!route) return fallback(request);
    const { offset, rejectOnRateLimit } = this.#options;
    let body: unknown;
    try {
      body = answer.parse();
    } catch {
      body = undefined;
    }
    const { retryAfterSeconds, global } = readRateLimit(answer.header, body);
    const retryAfter =
      retryAfterSeconds === undefined
        ? 0
        : retryAfterSeconds * 1000 +
          Math.max(0, typeof offset === 'number' ? offset : offset(route.bucketRoute));
    const limit: RateLimitData = {
      global,
      method,
      url,
      route: route.bucketRoute,
      majorParameter: route.majorParameter,
      hash: `Global(${method}:${route.bucketRoute})`,
      limit: Number.POSITIVE_INFINITY,
      timeToReset: retryAfter,
      retryAfter,
      sublimitTimeout: 0,
      scope: (answer.header('x-ratelimit-scope') ?? 'user') as RateLimitData['scope'],
    };
    const reject =
      typeof rejectOnRateLimit === 'function'
        ? await rejectOnRateLimit(limit)
        : (rejectOnRateLimit ?? []).some((prefix) => limit.route.startsWith(prefix.toLowerCase()));
    if (reject) throw new RateLimitError(limit);
    await new Promise((wake) => setTimeout(wake, retryAfter));
    return fallback(request);
  }
}

/** What a 429 says: how long to wait, in seconds (undefined when it does not say), and whether for every route. */
export interface RateLimitAnswer {
  retryAfterSeconds: number | undefined;
  global: boolean;
}

/**
 * Reads a 429 as Discord documents it ("Exceeding A Rate Limit": the body is `{ message,
 * retry_after, global, code? }`, and an application "should rely on the Retry-After header or
 * retry_after field"). The wait is the `Retry-After` header, else the body's `retry_after`, else
 * `X-RateLimit-Reset-After` (all in seconds; a value that is not a number of seconds counts as
 * absent). Global when the body says `global: true` or `X-RateLimit-Global` is `true`: the header's
 * mere presence, which is all @discordjs/rest looks at, does not make it so.
 *
 * @param header - the answer's header by lower-case name
 * @param body - the answer's body, parsed (anything but an object is taken as no body)
 */
export function readRateLimit(
  header: (name: string) => string | null | undefined,
  body: unknown,
): RateLimitAnswer {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as {
    retry_after?: unknown;
    global?: unknown;
  };
  return {
    retryAfterSeconds:
      seconds(header('retry-after')) ??
      seconds(fields.retry_after) ??
      seconds(header('x-ratelimit-reset-after')),
    global: fields.global === true || header('x-ratelimit-global')?.trim().toLowerCase() === 'true',
  };
}

function seconds(value: unknown): number | undefined {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

/** `/interactions/{id}/{token}/callback`: an interaction's acknowledgement. */
function isCallback(fullRoute: string): boolean {
  return fullRoute.startsWith('/interactions/') && fullRoute.endsWith('/callback');
}

/** `/webhooks/{application id}/{token}`, the route a follow-up is posted to (nothing after the token). */
function isFollowUp(fullRoute: string): boolean {
  return fullRoute.startsWith('/webhooks/') && fullRoute.split('/').length === 4;
}

/**
 * Errors raised before the request was written to a connection (none could be opened, or the pool
 * is closed), so Discord cannot have seen it and sending it again is safe. Anything else (a
 * connection closed or reset after the request went out, no answer in time) may have reached it.
 */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

function neverSent(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && NEVER_SENT.has(code);
}

/** @discordjs/rest's own reading of a route (a static it does not declare public). */
interface RouteData {
  generateRouteData?: (route: string, method: string) => { majorParameter: string; bucketRoute: string };
}

interface Answer {
  status: number;
  header: (name: string) => string | undefined;
  /** The body as @discordjs/rest reads it: JSON when it says so, else the bytes. */
  parse(): unknown;
  /** The answer as the library's `queueRequest` gives it (read by its `parseResponse`). */
  response(): ResponseLike;
}

/** The answer's headers read here: the body's type, what a 429 says, and a used-up bucket. */
const KEPT_HEADERS = new Set([
  'content-type',
  'retry-after',
  'x-ratelimit-global',
  'x-ratelimit-remaining',
  'x-ratelimit-reset-after',
  'x-ratelimit-scope',
]);

/**
 * One request and its whole answer, read into memory (interaction answers are small). undici's
 * dispatch handler API, the one its Pool takes directly (v7 takes the newer handler shape only
 * behind its interceptors).
 */
function exchange(pool: Pool, options: Dispatcher.DispatchOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const kept = new Map<string, string>();
    const chunks: Buffer[] = [];
    pool.dispatch(options, {
      onConnect() {},
      onHeaders(statusCode, rawHeaders) {
        status = statusCode;
        for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
          const name = rawHeaders[i]!.toString('latin1').toLowerCase();
          if (KEPT_HEADERS.has(name) && !kept.has(name))
            kept.set(name, rawHeaders[i + 1]!.toString('latin1'));
        }
        return true;
      },
      onData(chunk) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        const header = (name: string) => kept.get(name);
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const text = () => body.toString('utf8');
        const bytes = () =>
          body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
        const json = () => JSON.parse(text()) as unknown;
        const parse = () => (header('content-type')?.startsWith('application/json') ? json() : bytes());
        resolve({
          status,
          header,
          parse,
          response: () =>
            ({
              status,
              statusText: '',
              ok: true,
              bodyUsed: false,
              body: null,
              headers: { get: (name: string) => header(name.toLowerCase()) ?? null },
              json: () => new Promise((done) => done(json())),
              text: () => new Promise((done) => done(text())),
              arrayBuffer: () => new Promise((done) => done(bytes())),
            }) as unknown as ResponseLike,
        });
      },
      onError(error) {
        reject(error);
      },
    });
  });
}
