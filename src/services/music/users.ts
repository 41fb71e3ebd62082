/** The member's own profile, used by account linking. */
import type { MusicContext } from './context.js';
import { currentUserSchema, type CurrentUser } from './schemas.js';

export interface UsersApi {
  /**
   * `GET /v1/me`. `country`, `product` and `email` may be missing (scopes not granted, or a
   * development-mode app since 2026): never infer "not premium" from their absence.
   */
  me(userId: string): Promise<CurrentUser>;
  /** `GET /v1/me` with a token not stored yet: account linking names the account it just got. */
  meWithToken(accessToken: string): Promise<CurrentUser>;
}

export function createUsersApi(ctx: MusicContext): UsersApi {
  return {
    me: (userId) => ctx.json({ userId }, { url: '/v1/me' }, currentUserSchema),
    meWithToken: (accessToken) => ctx.json({ accessToken }, { url: '/v1/me' }, currentUserSchema),
  };
}
