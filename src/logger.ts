/**
 * Structured logs with pino. pino's own redaction works on object paths; secrets inside strings
 * (URLs, error messages) are removed here too, with the same rules as the upstream transport, at
 * any depth: a failed discord.js request carries its URL (with the interaction token in the path)
 * and the body it sent (a link prompt's button holds its `state`) as fields of the error.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { REDACTED, SECRET_PARAMS, redactText } from './services/http/redact.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  /** Literal secrets to strip wherever they appear (bot token, client secret, API key). */
  secrets?: () => Iterable<string>;
  destination?: DestinationStream;
}

const REDACT_PATHS = [
  'token',
  'accessToken',
  'refreshToken',
  'access_token',
  'refresh_token',
  'clientSecret',
  'client_secret',
  'apiKey',
  'appid',
  'code',
  'state',
  'codeVerifier',
  'authorization',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.access_token',
  '*.refresh_token',
  '*.clientSecret',
  '*.apiKey',
  '*.code',
  '*.state',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
];

/** Field names whose values are secrets wherever they sit in a log line (compared in lower case). */
const SECRET_FIELDS: ReadonlySet<string> = new Set([
  ...SECRET_PARAMS,
  ...REDACT_PATHS.filter((path) => !path.includes('.')).map((path) => path.toLowerCase()),
  // discord.js's RateLimitError names its bucket's major parameter: on an interaction's webhook
  // routes (edits, follow-ups) that is `{application id}/{interaction token}`, with no path around
  // it for the text scrubbing to recognize.
  'majorparameter',
]);

/**
 * A `code` that is an error code stays readable: Discord's numbers (10062, 50035), Node's and
 * undici's names (`ECONNRESET`, `UND_ERR_CONNECT_TIMEOUT`). An OAuth authorization code is a long
 * mixed-case string and never looks like that.
 */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
const isErrorCode = (value: unknown) =>
  typeof value === 'number' || (typeof value === 'string' && ERROR_CODE.test(value));

const hidden = (name: string, value: unknown) =>
  value !== null &&
  value !== undefined &&
  SECRET_FIELDS.has(name.toLowerCase()) &&
  !(name === 'code' && isErrorCode(value));

/**
 * A copy of a log line's value with every string scrubbed and every secret-named field censored.
 * An error, wherever it sits, is serialized the way the `err` serializer does it, then scrubbed: left
 * as it is, JSON would print its own fields (a discord.js error's URL and request body) untouched.
 * Binary data is left as it is; anything with `toJSON` (a URL) is scrubbed as what it will print as.
 */
function scrubDeep(value: unknown, scrub: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (typeof value !== 'object' || value === null || depth > 16) return value;
  if (value instanceof Error) return scrubDeep({ ...pino.stdSerializers.err(value) }, scrub, depth + 1);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => scrubDeep(item, scrub, depth + 1));
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return scrubDeep(toJSON.call(value), scrub, depth + 1);
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    out[name] = hidden(name, item) ? REDACTED : scrubDeep(item, scrub, depth + 1);
  }
  return out;
}

/** The message pino would take from the error when a log call gives none (see its `write`). */
function fallbackMessage(first: unknown): string | undefined {
  if (first instanceof Error) return first.message;
  if (typeof first !== 'object' || first === null) return undefined;
  const fields = first as { msg?: unknown; err?: unknown };
  if (fields.msg !== undefined || !fields.err) return undefined;
  const message = (fields.err as { message?: unknown }).message;
  if (message === undefined) return undefined;
  return typeof message === 'string' ? message : JSON.stringify(message);
}

/** Creates the process logger. Every string that reaches the output passes through {@link redactText}. */
export function createLogger(options: LoggerOptions): Logger {
  const known = () => [...(options.secrets?.() ?? [])];
  const scrub = (value: string) => redactText(value, known());
  return pino(
    {
      level: options.level,
      redact: {
        paths: REDACT_PATHS,
        censor: (value: unknown, path: string[]) => (hidden(path.at(-1) ?? '', value) ? REDACTED : value),
      },
      formatters: { log: (line) => scrubDeep(line, scrub) as Record<string, unknown> },
      serializers: {
        // Every field of the error, not just its message and stack: see the top of this file.
        err: (error: unknown) =>
          error instanceof Error
            ? scrubDeep({ ...pino.stdSerializers.err(error) }, scrub)
            : scrubDeep(error, scrub),
        url: (url: unknown) => (typeof url === 'string' ? scrub(url) : url),
      },
      hooks: {
        logMethod(args, method) {
          // What follows the message fills its placeholders (`%s`, `%j`, `%o`): scrubbed as well.
          const cleaned = args.map((arg: unknown, index) =>
            typeof arg === 'string' ? scrub(arg) : index > 0 ? scrubDeep(arg, scrub) : arg,
          );
          // `logger.error(error)` without a message: pino would take the error's own message, unscrubbed.
          // Nor `logger.warn({ err })`: pino takes `err.message` for the message there too.
          const [first] = args;
          if (typeof args[1] !== 'string') {
            const message = fallbackMessage(first);
            if (message !== undefined) cleaned.splice(1, 0, scrub(message));
          }
          method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
    },
    options.destination,
  );
}

/**
 * A gate for a log line that the same cause would repeat (each read meeting the same damaged
 * record): true for a key's first call, then again only once `everyMs` has passed since it was last
 * true. Keys are the cause's (a server id); one entry each.
 */
export function oncePer(everyMs: number, now: () => number = Date.now): (key: string) => boolean {
  const toldAt = new Map<string, number>();
  return (key) => {
    const at = now();
    const last = toldAt.get(key);
    if (last !== undefined && at - last < everyMs) return false;
    toldAt.set(key, at);
    return true;
  };
}

const noticeGates = new WeakMap<object, (kind: string) => boolean>();

/**
 * Whether a line for the owner about `kind` (a service down, a key refused) is due on this logger:
 * once a minute at most, as every member's command meets the same cause. One gate per logger, so
 * two bots in one process do not silence each other.
 */
export function ownerNotice(logger: object, kind: string): boolean {
  let gate = noticeGates.get(logger);
  if (gate === undefined) noticeGates.set(logger, (gate = oncePer(60_000)));
  return gate(kind);
}
