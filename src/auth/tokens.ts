/**
 * Access tokens on demand: the stored one while it is fresh, otherwise one refresh per user at a
 * time, in this process (a shared promise) and across processes (a claim in shared storage).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { AppCredentialsError } from '../services/music/errors.js';
import { keepClaim, retryStorage, type Storage } from '../storage/index.js';
import { OAuthError, type MusicOAuth } from './oauth.js';
import { LinkBusyError, linkLockKey, type MusicLink, type TokenVault } from './vault.js';

/** The member has not linked a music account. */
export class NotLinkedError extends Error {
  override readonly name = 'NotLinkedError';
  /** The message is meant for the member. */
  get userMessage(): string {
    return this.message;
  }
  constructor() {
    super('You have not linked a music account yet. Use /music link first.');
  }
}

/** The link stopped working (refresh token expired or revoked): the member must link again. */
export class RelinkRequiredError extends Error {
  override readonly name = 'RelinkRequiredError';
  get userMessage(): string {
    return this.message;
  }
  constructor(options?: ErrorOptions) {
    super('Your music account link has expired or was revoked. Use /music link to link it again.', options);
  }
}

/**
 * Why a member has no link: it lapsed (found here or in another process, now or months ago), or
 * they never linked or unlinked.
 */
export async function missingLinkError(
  vault: Pick<TokenVault, 'lapsed'>,
  userId: string,
): Promise<RelinkRequiredError | NotLinkedError> {
  return (await vault.lapsed(userId)) ? new RelinkRequiredError() : new NotLinkedError();
}

export interface TokenSourceOptions {
  vault: TokenVault;
  oauth: Pick<MusicOAuth, 'refresh'>;
  storage: Storage;
  now?: () => number;
  /** Refresh this long before expiry, so a token never expires mid-request. */
  skewMs?: number;
  /** How long one process may hold the refresh lock of a user. */
  lockTtlMs?: number;
  /** How long to wait for another process's refresh before giving up. */
  waitMs?: number;
  /**
   * How long a refreshed link is read and written again when storage fails, before it is kept in
   * memory and stored later (see `keepLater`); 10 s by default.
   */
  storeRetryMs?: number;
  /** `dropped`: the answer came for a link that was unlinked or replaced meanwhile, and was not kept. */
  onRefresh?: (outcome: 'ok' | 'relink' | 'error' | 'dropped') => void;
  /**
   * A refreshed link that storage would not take at once (see `keepLater`) was `stored` in the
   * end; `dropped`, the member having unlinked or linked anew meanwhile; or `lost`: given up after
   * an hour, or the process stopped first (the member links again).
   */
  onStoredLater?: (outcome: 'stored' | 'dropped' | 'lost') => void;
}

export interface TokenSource {
  /**
   * A usable access token for the member, refreshed when it is about to expire. `rejected` is a
   * token the service has just refused (revoked or expired early): it is refreshed even if it looks
   * fresh, once for all callers that saw it refused, and a token already replaced is not refreshed again.
   */
  getAccessToken(userId: string, rejected?: string): Promise<string>;
  /**
   * Stops trying to store refreshed links that storage has not taken yet (see `keepLater`), after
   * the try in progress; resolves when none is left. Called before storage closes.
   */
  close(): Promise<void>;
}

/**
 * How long a refreshed link is read and written again when storage fails (see `refresh`), the link
 * lock kept meanwhile: long enough for a Redis failover or a SQLite file busy for seconds (three
 * tries in 1.2 s were not: the new refresh token was lost with the write, the spent one stayed
 * stored, and the member had to link again).
 */
const STORE_RETRY_MS = 10_000;

/**
 * How long a refreshed link that storage would not take within {@link STORE_RETRY_MS} is kept in
 * memory and tried again in the background (see `keepLater`): the life of its access token.
 */
const STORE_LATER_MS = 3_600_000;

export function createTokenSource(options: TokenSourceOptions): TokenSource {
  const now = options.now ?? Date.now;
  const skewMs = options.skewMs ?? 60_000;
  const lockTtlMs = options.lockTtlMs ?? 15_000;
  const waitMs = options.waitMs ?? 20_000;
  const storeRetryMs = options.storeRetryMs ?? STORE_RETRY_MS;
  /** Runs storage work, trying again for `storeRetryMs` when it fails. */
  const persistently = <T>(work: () => Promise<T>): Promise<T> => retryStorage(work, storeRetryMs);
  const inFlight = new Map<string, Promise<string>>();
  /** Refreshed links storage has not taken yet, by member: their tokens are served from here. */
  const unstored = new Map<string, { link: MusicLink; spent: string; stored: Promise<void> }>();
  const stopping = new AbortController();

  const noLink = (userId: string) => missingLinkError(options.vault, userId);

  const fresh = (link: MusicLink | undefined, rejected?: string): link is MusicLink =>
    link !== undefined && link.expiresAt - skewMs > now() && link.accessToken !== rejected;

  async function refreshOnce(userId: string, rejected?: string): Promise<string> {
    const owner = randomUUID();
    const deadline = now() + waitMs;
    // The same lock as unlinking and linking anew (see `linkLockKey`), so none of them interleave.
    const lock = linkLockKey(userId);
    for (let pause = 25; ; pause = Math.min(pause * 2, 250)) {
      if (await options.storage.claim('locks', lock, lockTtlMs, owner)) {
        // Kept for as long as this process works under it, however long the token endpoint or
        // storage takes (a process that dies lets it run out). Run out while the token endpoint was
        // answering, it let another process send the same refresh token, which the service had just
        // rotated: that refusal read as a revoked link, and a good link was deleted.
        const stopKeeping = keepClaim(options.storage, 'locks', lock, lockTtlMs, owner);
        try {
          // Read again under the lock: another process may have refreshed meanwhile, and its
          // refresh token replaced ours (with rotation, ours is now spent).
          const link = await options.vault.get(userId);
          if (!link) throw await noLink(userId);
          // Its refresh token spent here, and the link that replaced it not stored yet (a read
          // begun before it was kept brought back the stored one): never sent again.
          const waiting = unstored.get(userId);
          if (waiting && waiting.spent === link.refreshToken) {
            if (fresh(waiting.link, rejected)) return waiting.link.accessToken;
            throw new LinkBusyError('store a refreshed music token');
          }
          if (fresh(link, rejected)) return link.accessToken;
          return await refresh(userId, link, owner);
        } finally {
          stopKeeping();
          // As in `vault.locked`: a lock that cannot be given up runs out; the refresh stands.
          await options.storage.release('locks', lock, owner).catch(() => {});
        }
      }
      await delay(pause);
      const link = await options.vault.get(userId);
      if (!link) throw await noLink(userId);
      if (fresh(link, rejected)) return link.accessToken;
      if (now() > deadline) throw new LinkBusyError('refresh a music token');
    }
  }

  /**
   * The link as stored now, if it is still the one whose refresh token was sent. The token endpoint
   * may have taken longer than the lock lasts, and the member unlinked or linked another account
   * meanwhile: then the answer belongs to a link that is gone and must not be written.
   */
  async function stillCurrent(userId: string, sent: MusicLink): Promise<MusicLink | undefined> {
    const current = await options.vault.get(userId);
    return current?.refreshToken === sent.refreshToken ? current : undefined;
  }

  async function refresh(userId: string, link: MusicLink, owner: string): Promise<string> {
    let tokens;
    try {
      tokens = await options.oauth.refresh(link.refreshToken);
    } catch (error) {
      if (error instanceof OAuthError && error.oauthError === 'invalid_grant') {
        // A link made anew while the service answered works: it is kept, and used.
        if (!(await stillCurrent(userId, link))) return dropped(userId);
        // Expired (six months after consent) or revoked: drop the dead link, ask to link again.
        // Which refresh token was refused is noted (as a digest), for `restoreLapsed`.
        await options.vault.lapse(userId, now(), link.refreshToken);
        options.onRefresh?.('relink');
        throw new RelinkRequiredError({ cause: error });
      }
      options.onRefresh?.('error');
      // The bot's own credentials are refused: the link may be fine, so it is kept.
      if (error instanceof OAuthError && error.oauthError === 'invalid_client') {
        throw new AppCredentialsError(error.message, { cause: error });
      }
      throw error;
    }
    // From here the service has spent the refresh token it replaced: a storage hiccup while the
    // link is read or written must not lose the new one (the member would have to link again).
    // The tokens' time is when they came, however late they are stored.
    const at = now();
    const refreshed = (from: MusicLink): MusicLink => {
      return {
        ...from,
        accessToken: tokens.accessToken,
        // With PKCE the service rotates refresh tokens; keep the old one only when it sent none.
        refreshToken: tokens.refreshToken ?? from.refreshToken,
        expiresAt: at + tokens.expiresInSeconds * 1000,
        scopes: tokens.scopes.length > 0 ? tokens.scopes : from.scopes,
        refreshedAt: at,
      };
    };
    // Storage would not take it for `storeRetryMs`: a rotated link is kept for later; without
    // rotation the stored refresh token still works, and nothing is lost.
    const unstorable = () => {
      if (tokens.refreshToken === undefined || tokens.refreshToken === link.refreshToken) {
        options.onRefresh?.('ok');
        return tokens.accessToken;
      }
      return keepLater(userId, link, refreshed);
    };
    let current: MusicLink | undefined;
    try {
      current = await persistently(() => stillCurrent(userId, link));
    } catch {
      return unstorable();
    }
    if (!current) {
      let restored: boolean;
      try {
        restored = await restoreLapsed(userId, link, owner, () => refreshed(link));
      } catch {
        return unstorable();
      }
      if (restored) {
        options.onRefresh?.('ok');
        return tokens.accessToken;
      }
      return dropped(userId);
    }
    try {
      await keepRotated(userId, refreshed(current));
    } catch {
      return unstorable();
    }
    options.onRefresh?.('ok');
    return tokens.accessToken;
  }

  /**
   * A refreshed link that storage would not read or take for {@link STORE_RETRY_MS} (a failover
   * that lasts, a SQLite file locked for long). The service has spent the refresh token it
   * replaced, so the new tokens are kept in memory: the caller gets the access token, later calls
   * in this process get it from here, and the link is written in the background as soon as storage
   * takes it, for up to {@link STORE_LATER_MS} or until the process stops. It is written under the
   * link lock and only over the link whose refresh token was sent, or put back if another process
   * sent that spent token meanwhile and lapsed the link for it; a member who unlinked or linked
   * anew meanwhile keeps that. A process that stops or dies first loses it, and the member links
   * again (kept nowhere but in memory: it is a live credential).
   */
  function keepLater(userId: string, sent: MusicLink, refreshed: (from: MusicLink) => MusicLink): string {
    const link = refreshed(sent);
    const store = () =>
      options.vault.locked(
        userId,
        async () => {
          const current = await stillCurrent(userId, sent);
          if (current) await options.vault.put(userId, refreshed(current));
          else if (await options.vault.lapsedOn(userId, sent.refreshToken)) {
            await options.vault.restore(userId, link);
          } else return 'dropped';
          return 'stored';
        },
        stopping.signal,
      );
    const stored: Promise<void> = retryStorage(store, STORE_LATER_MS, stopping.signal)
      .then(
        (outcome) => options.onStoredLater?.(outcome),
        () => options.onStoredLater?.('lost'),
      )
      .finally(() => {
        if (unstored.get(userId)?.stored === stored) unstored.delete(userId);
      });
    unstored.set(userId, { link, spent: sent.refreshToken, stored });
    options.onRefresh?.('ok');
    return link.accessToken;
  }

  /**
   * The access token of a refreshed link not stored yet, or, once it is due (or was refused), the
   * wait until it is stored: a refresh before then would send the refresh token it replaced, which
   * the service has spent. Storage still refusing it after {@link STORE_RETRY_MS} is a busy link.
   */
  async function fromUnstored(userId: string, rejected?: string): Promise<string | undefined> {
    const waiting = unstored.get(userId);
    if (!waiting) return undefined;
    // What storage holds now, when it answers: the member may have unlinked or linked anew (here
    // or in another process), and then the kept link is not theirs any more.
    let gone = false;
    try {
      const stored = await options.vault.get(userId);
      if (stored?.refreshToken === waiting.link.refreshToken) return undefined;
      gone =
        stored === undefined
          ? !(await options.vault.lapsedOn(userId, waiting.spent))
          : stored.refreshToken !== waiting.spent;
    } catch {
      // Out of reach still: the kept link is all there is.
    }
    if (gone) {
      if (unstored.get(userId) === waiting) unstored.delete(userId);
      return undefined;
    }
    if (fresh(waiting.link, rejected)) return waiting.link.accessToken;
    const outcome = await Promise.race([
      waiting.stored.then(() => 'stored' as const),
      delay(storeRetryMs, 'waiting' as const, { ref: false }),
    ]);
    if (outcome === 'waiting') throw new LinkBusyError('store a refreshed music token');
    return undefined;
  }

  /**
   * The link is gone while the service answered, lapsed by another process that the service
   * refused the very refresh token sent here: this process was held up (paused, swapped out, its
   * lock's keep-alive stalled with it) until the lock ran out, the other took it and sent the token
   * the service had just spent here, and its refusal read as a revoked link. The member did
   * nothing, and the service's answer here is good: the link is put back with it, under the link
   * lock (still this process's own if it has not run out, else taken again). Nothing is put back
   * once the member has linked anew or unlinked since. True when put back. (A service that, on
   * seeing a spent refresh token again, revoked every token of that consent would refuse the link
   * put back at its next use; it then lapses as any revoked link does. The contract and the
   * upstream notes say only that a rotated refresh token works once.) Throws when storage (or the
   * lock) cannot be had: the caller keeps the link for later (see `keepLater`).
   */
  async function restoreLapsed(
    userId: string,
    sent: MusicLink,
    owner: string,
    refreshed: () => MusicLink,
  ): Promise<boolean> {
    const put = async () => {
      if (!(await options.vault.lapsedOn(userId, sent.refreshToken))) return false;
      await persistently(() => options.vault.restore(userId, refreshed()));
      return true;
    };
    if (!(await options.vault.lapsedOn(userId, sent.refreshToken))) return false;
    if (await options.storage.extend('locks', linkLockKey(userId), lockTtlMs, owner)) return await put();
    return await options.vault.locked(userId, put);
  }

  /**
   * Stores a refreshed link, trying again after a failed write: the service has already spent the
   * refresh token it replaced (rotation), so a write lost to a storage hiccup would leave only a
   * spent token behind, and the member would have to link again. The lock is kept meanwhile.
   */
  function keepRotated(userId: string, refreshed: MusicLink): Promise<void> {
    return persistently(() => options.vault.put(userId, refreshed));
  }

  /**
   * The member unlinked, or linked anew, while the service answered: its answer is not kept, and
   * the caller gets what is stored now (a token that is then refused is refreshed on the next try).
   */
  async function dropped(userId: string): Promise<string> {
    options.onRefresh?.('dropped');
    const stored = await options.vault.get(userId);
    if (!stored) throw await noLink(userId);
    return stored.accessToken;
  }

  return {
    async getAccessToken(userId, rejected) {
      const kept = await fromUnstored(userId, rejected);
      if (kept !== undefined) return kept;
      const link = await options.vault.get(userId);
      if (!link) throw await noLink(userId);
      if (fresh(link, rejected)) return link.accessToken;
      // One refresh in flight per user; a refusal of the token it replaces joins it too.
      let pending = inFlight.get(userId);
      if (!pending) {
        pending = refreshOnce(userId, rejected).finally(() => inFlight.delete(userId));
        inFlight.set(userId, pending);
      }
      return pending;
    },

    async close() {
      stopping.abort();
      await Promise.all([...unstored.values()].map(({ stored }) => stored));
    },
  };
}
