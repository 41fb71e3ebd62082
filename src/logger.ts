/**
 * Structured logs with pino. pino's own redaction works on object paths; secrets inside strings
 * (URLs, error messages) are removed here too, with the same rules as the upstream transport.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { redactText } from './services/http/redact.js';

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

/** Creates the process logger. Every string that reaches the output passes through {@link redactText}. */
export function createLogger(options: LoggerOptions): Logger {
  const known = () => [...(options.secrets?.() ?? [])];
  const scrub = (value: string) => redactText(value, known());
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      serializers: {
        err: (error: unknown) => {
          const serialized = pino.stdSerializers.err(error as Error);
          return {
            ...serialized,
            message: scrub(serialized.message),
            stack: serialized.stack ? scrub(serialized.stack) : serialized.stack,
          };
        },
        url: (url: unknown) => (typeof url === 'string' ? scrub(url) : url),
      },
      hooks: {
        logMethod(args, method) {
          const cleaned = args.map((arg: unknown) => (typeof arg === 'string' ? scrub(arg) : arg));
          method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
    },
    options.destination,
  );
}
