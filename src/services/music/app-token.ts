/**
 * The application token for catalog calls: Client Credentials grant (RFC 6749 §4.4), cached until
 * shortly before it expires, with at most one token request in flight.
 */
import { HttpError } from '../http/errors.js';
import type { Transport } from '../http/transport.js';
import { AppCredentialsError } from './errors.js';
import { tokenResponseSchema } from './schemas.js';

export interface AppTokenOptions {
  transport: Transport;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  now: () => number;
  /** A token this close to its expiry is renewed before use. */
  renewBeforeMs: number;
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

export class AppTokenSource {
  private cached: CachedToken | undefined;
  private pending: Promise<CachedToken> | undefined;

  constructor(private readonly options: AppTokenOptions) {}

  /** A valid application token: the cached one, the one being fetched, or a new one. */
  async get(): Promise<string> {
    const { now, renewBeforeMs } = this.options;
    if (this.cached !== undefined && now() < this.cached.expiresAt - renewBeforeMs) return this.cached.value;
    this.pending ??= this.request().finally(() => {
      this.pending = undefined;
    });
    return (await this.pending).value;
  }

  /** Forgets `token` after the service refused it, so the next call fetches a new one. */
  invalidate(token: string): void {
    if (this.cached?.value === token) this.cached = undefined;
  }

  /** The current token, for redaction. */
  current(): string | undefined {
    return this.cached?.value;
  }

  /** RFC 6749 §4.4.2: the access token request, authenticated with HTTP Basic (§2.3.1). */
  private async request(): Promise<CachedToken> {
    const { transport, authUrl, clientId, clientSecret, now } = this.options;
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString(
      'base64',
    );
    const started = now();
    try {
      const token = await transport.json(
        {
          method: 'POST',
          url: `${authUrl}/api/token`,
          headers: { authorization: `Basic ${basic}` },
          form: { grant_type: 'client_credentials' },
        },
        tokenResponseSchema,
      );
      this.cached = { value: token.access_token, expiresAt: started + token.expires_in * 1000 };
      return this.cached;
    } catch (error) {
      // §5.2: the token endpoint answers 400/401 with an OAuth error when our credentials are wrong.
      if (error instanceof HttpError && (error.status === 400 || error.status === 401))
        throw new AppCredentialsError(error.detail, { cause: error });
      throw error;
    }
  }
}
