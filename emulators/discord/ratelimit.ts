import { createHash } from 'node:crypto';
import type { RESTRateLimit } from 'discord-api-types/v10';
import { DiscordHttpError } from './errors.js';

/**
 * A rate limit a test imposes. The first `remaining` matching requests pass; the window opens at
 * the first matching request and lasts `resetAfterMs`; requests beyond `remaining` inside the
 * window get 429. When the window ends the rule is lifted (one window, so a test's retry succeeds).
 */
export interface RateLimitRule {
  /** Tested against the path after `/api/v10`, e.g. `/channels/123/messages`. All routes when absent. */
  route?: RegExp;
  remaining: number;
  resetAfterMs: number;
  /**
   * A global limit: `X-RateLimit-Global` and `global: true`, which blocks every route in discord.js.
   * Interaction callbacks and interaction webhooks are not bound to it, as on Discord.
   */
  global?: boolean;
  /**
   * Fault injection, off by default (Discord always sends the header): the 429 comes without
   * `Retry-After`, so its wait is only in the body's `retry_after` (and, on a route's limit,
   * `X-RateLimit-Reset-After`), as from a proxy that drops the header.
   */
  omitRetryAfterHeader?: boolean;
}

interface ActiveRule extends RateLimitRule {
  limit: number;
  resetAt: number | null;
}

/** Discord's informational per-route budget; the emulator reports it but never enforces it. */
const ROUTE_LIMIT = 50;
const ROUTE_WINDOW_MS = 1_000;
/**
 * An interaction token's webhook routes (edits, follow-ups, deletes and reads together): 5 requests
 * per 2 s per interaction, measured against Discord and confirmed by its staff as the webhook
 * limits (discord/discord-api-docs#2701). Reported and enforced: a sixth request inside the window
 * gets 429 with the bucket's headers, as on Discord.
 */
const WEBHOOK_LIMIT = 5;
const WEBHOOK_WINDOW_MS = 2_000;

/**
 * Rate-limit headers on every answer, and the 429s a test asks for. Uses the real clock, because
 * discord.js waits out `Retry-After` and `X-RateLimit-Reset-After` in real time.
 */
export class RateLimiter {
  #rule: ActiveRule | null = null;
  readonly #windows = new Map<string, { count: number; resetAt: number }>();
  /** The bucket hash of each `method route` (a few dozen routes, each hashed once). */
  readonly #buckets = new Map<string, string>();
  #sweptAt = 0;

  set(rule: RateLimitRule | null): void {
    this.#rule = rule ? { ...rule, limit: Math.max(rule.remaining, 1), resetAt: null } : null;
  }

  /**
   * Headers for a request that may proceed, or throws the 429. `bucketKey` is the route template
   * with its major parameter (channel, guild, interaction, or webhook id and token) filled in, as
   * Discord buckets requests.
   */
  check(method: string, path: string, routeTemplate: string, bucketKey: string): Record<string, string> {
    const now = Date.now();
    const isWebhook = isInteractionWebhook(routeTemplate);
    // An interaction's webhook routes share one bucket, whatever the method or message.
    const bucket = this.#bucket(isWebhook ? 'interaction webhook' : `${method} ${routeTemplate}`);
    let rule = this.#rule;
    if (rule && rule.resetAt !== null && now >= rule.resetAt) {
      this.#rule = null;
      rule = null;
    }
    if (rule?.route) rule.route.lastIndex = 0;
    const exempt = rule?.global === true && isInteractionRoute(routeTemplate);
    if (rule && !exempt && (rule.route === undefined || rule.route.test(path))) {
      const ruled = this.#checkRule(rule, now, bucket);
      // A global limit is not the route's: a request it lets through reports its route's own
      // bucket, as on Discord, where the global limit shows only in its 429.
      if (ruled) return ruled;
    }
    const limit = isWebhook ? WEBHOOK_LIMIT : ROUTE_LIMIT;
    // `/webhooks/{application id}/{token}`: the interaction's, across its routes and methods.
    const key = isWebhook ? bucketKey.split('/', 4).join('/') : `${method} ${bucketKey}`;
    let window = this.#windows.get(key);
    if (!window || now >= window.resetAt) {
      this.#sweep(now);
      window = { count: 0, resetAt: now + (isWebhook ? WEBHOOK_WINDOW_MS : ROUTE_WINDOW_MS) };
      this.#windows.set(key, window);
    }
    if (isWebhook && window.count >= limit) {
      throw rateLimited(
        { ...rateLimitHeaders(limit, 0, window.resetAt, now, bucket), 'X-RateLimit-Scope': 'user' },
        window.resetAt - now,
        false,
        false,
      );
    }
    window.count += 1;
    return rateLimitHeaders(limit, Math.max(limit - window.count, 0), window.resetAt, now, bucket);
  }

  #bucket(route: string): string {
    let bucket = this.#buckets.get(route);
    if (bucket === undefined) {
      bucket = createHash('sha1').update(route).digest('hex').slice(0, 32);
      this.#buckets.set(route, bucket);
    }
    return bucket;
  }

  /**
   * Drops windows that have ended, at most once a window: each interaction token is a bucket of its
   * own, and an emulator that serves a long run would otherwise keep one window per interaction.
   */
  #sweep(now: number): void {
    if (now - this.#sweptAt < ROUTE_WINDOW_MS) return;
    this.#sweptAt = now;
    for (const [key, window] of this.#windows) if (now >= window.resetAt) this.#windows.delete(key);
  }

  /** The headers of a request a route rule lets through, none for a global rule's, or the 429. */
  #checkRule(rule: ActiveRule, now: number, bucket: string): Record<string, string> | undefined {
    rule.resetAt ??= now + rule.resetAfterMs;
    if (rule.remaining > 0) {
      rule.remaining -= 1;
      return rule.global === true
        ? undefined
        : rateLimitHeaders(rule.limit, rule.remaining, rule.resetAt, now, bucket);
    }
    const global = rule.global === true;
    const headers: Record<string, string> = global
      ? { 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global' }
      : { ...rateLimitHeaders(rule.limit, 0, rule.resetAt, now, bucket), 'X-RateLimit-Scope': 'user' };
    throw rateLimited(headers, rule.resetAt - now, global, rule.omitRetryAfterHeader === true);
  }
}

/** A 429: `headers` and, unless omitted, `Retry-After`; the body with the exact wait. */
function rateLimited(
  headers: Record<string, string>,
  retryAfterMs: number,
  global: boolean,
  omitRetryAfterHeader: boolean,
): DiscordHttpError {
  const waitMs = Math.max(retryAfterMs, 0);
  const body: RESTRateLimit = {
    message: 'You are being rate limited.',
    retry_after: Math.round(waitMs) / 1000,
    global,
  };
  // Discord's Retry-After header is whole seconds, rounded up; the body carries the exact value.
  const retryAfter = omitRetryAfterHeader ? {} : { 'Retry-After': String(Math.ceil(waitMs / 1000)) };
  return new DiscordHttpError(429, body, { ...retryAfter, ...headers });
}

/**
 * The interaction callback and the interaction webhook: "Interaction endpoints are not bound to the
 * bot's Global Rate Limit" (Discord's rate-limit docs), so a global rule lets them through.
 */
function isInteractionRoute(routeTemplate: string): boolean {
  return (
    routeTemplate === '/interactions/:interactionId/:token/callback' || isInteractionWebhook(routeTemplate)
  );
}

/** The routes of an interaction token: its original response and its follow-ups. */
function isInteractionWebhook(routeTemplate: string): boolean {
  return routeTemplate.startsWith('/webhooks/:webhookId/:token');
}

function rateLimitHeaders(
  limit: number,
  remaining: number,
  resetAt: number,
  now: number,
  bucket: string,
): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': (resetAt / 1000).toFixed(3),
    'X-RateLimit-Reset-After': (Math.max(resetAt - now, 0) / 1000).toFixed(3),
    'X-RateLimit-Bucket': bucket,
  };
}
