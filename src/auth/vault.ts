/**
 * The token vault: each Discord user's music link, encrypted at rest in the `links` namespace.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { UpstreamError } from '../services/http/errors.js';
import { LockBusyError, withLock, type Storage } from '../storage/index.js';
import { seal, sealedKeyId, unseal, type Keyring } from './seal.js';

export const musicLinkSchema = z.object({
  /** The music account's stable id (`account_id` from /v1/me, else `id`). */
  accountId: z.string(),
  displayName: z.string().nullable(),
  product: z.string().optional(),
  country: z.string().optional(),
  scopes: z.array(z.string()),
  accessToken: z.string(),
  refreshToken: z.string(),
  /** Epoch ms when the access token stops working. */
  expiresAt: z.number(),
  linkedAt: z.number(),
  refreshedAt: z.number().optional(),
});
export type MusicLink = z.infer<typeof musicLinkSchema>;

/**
 * Thrown when a stored link cannot be decrypted (wrong TOKEN_ENCRYPTION_KEY, or tampering). The
 * member can mend it by linking again, which replaces the link; the owner is told through the log.
 */
export class VaultError extends Error {
  override readonly name = 'VaultError';
  readonly userMessage =
    'This bot can no longer read your music link (its owner changed the encryption key). ' +
    'Link your account again with /music link.';
}

/**
 * The key, in the `locks` namespace, that every change to a member's link holds: a refresh while
 * it waits for the token endpoint, an unlink, a new link. Without it, a refresh that started before
 * an unlink or a new link would write the old account's tokens back when the service answers.
 */
export function linkLockKey(userId: string): string {
  return `refresh:${userId}`;
}

/**
 * Another process held a member's link lock for longer than we wait: its refresh is stuck on a
 * token endpoint that does not answer, most likely.
 */
export class LinkBusyError extends UpstreamError {
  override readonly name: string = 'LinkBusyError';
  readonly userMessage = 'The music service is not answering right now. Please try again in a minute.';
  constructor(what: string) {
    super(`Timed out waiting for another process to ${what}`, 'music');
  }
}

export interface TokenVaultOptions {
  /** How long one holder may keep a member's link lock. */
  lockTtlMs?: number;
  /** How long to wait for the lock before giving up with a `LinkBusyError`. */
  waitMs?: number;
}

/** How long the note of a lapsed link is kept: a member may come back to the bot after months. */
const LAPSE_NOTE_MS = 365 * 24 * 3600_000;
/**
 * How long the note of which refresh token a lapse was for is kept (see {@link TokenVault.lapsedOn}):
 * long enough for a process held up in the middle of a refresh to come back to it.
 */
const LAPSE_CAUSE_MS = 60 * 60_000;

/** Names a refresh token without holding it: the first 128 bits of its SHA-256, in base64url. */
function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}
const causeKey = (userId: string) => `cause:${userId}`;

export class TokenVault {
  private readonly store;
  private readonly lapses;
  private readonly lockTtlMs: number;
  private readonly waitMs: number;

  constructor(
    private readonly storage: Storage,
    private readonly keyring: Keyring,
    options: TokenVaultOptions = {},
  ) {
    this.store = storage.ns<string>('links');
    this.lapses = storage.ns<number | string>('link-lapses');
    this.lockTtlMs = options.lockTtlMs ?? 15_000;
    this.waitMs = options.waitMs ?? 20_000;
  }

  /**
   * Reads a link. One sealed with a previous key is returned as it is, not sealed again here: a
   * write outside the link lock could put back a refresh token that a refresh has just spent. The
   * next write (a refresh or a new link) seals it with the current key.
   */
  async get(userId: string): Promise<MusicLink | undefined> {
    const sealed = await this.store.get(userId);
    if (sealed === undefined) return undefined;
    let plain: unknown;
    try {
      plain = unseal(this.keyring, userId, sealed);
    } catch {
      throw new VaultError(
        'A stored music link could not be decrypted: it was written with a key that is neither ' +
          'TOKEN_ENCRYPTION_KEY nor one of TOKEN_ENCRYPTION_KEYS_OLD.',
      );
    }
    const parsed = musicLinkSchema.safeParse(plain);
    if (!parsed.success) throw new VaultError('A stored music link has an unexpected shape.');
    return parsed.data;
  }

  /** Writes a link, always sealed with the current key. Callers hold the link lock (see {@link locked}). */
  async put(userId: string, link: MusicLink): Promise<void> {
    await this.store.set(userId, seal(this.keyring, userId, musicLinkSchema.parse(link)));
  }

  /**
   * Deletes a link (the member unlinked); false when there was none. Callers hold the link lock
   * (see {@link locked}).
   */
  async delete(userId: string): Promise<boolean> {
    const deleted = await this.store.delete(userId);
    // Best effort: a note left behind would only word a later "not linked" as "expired".
    await this.lapses.delete(userId).catch(() => false);
    // A refresh held up since must not put back a link the member has since removed.
    await this.lapses.delete(causeKey(userId));
    return deleted;
  }

  /**
   * Deletes a link the service no longer honours (its refresh token expired or was revoked), and
   * notes when, so that every later use, in any process, says the link expired rather than that
   * there never was one. The note holds no token. Callers hold the link lock.
   */
  async lapse(userId: string, at: number, refusedRefreshToken?: string): Promise<void> {
    await this.store.delete(userId);
    await this.lapses.set(userId, at, LAPSE_NOTE_MS).catch(() => false);
    if (refusedRefreshToken !== undefined) {
      await this.lapses
        .set(causeKey(userId), tokenDigest(refusedRefreshToken), LAPSE_CAUSE_MS)
        .catch(() => false);
    }
  }

  /**
   * Whether the member's link lapsed because the service refused `refreshToken` (see {@link lapse})
   * and nothing was linked or unlinked since.
   */
  async lapsedOn(userId: string, refreshToken: string): Promise<boolean> {
    const cause = await this.lapses.get(causeKey(userId)).catch(() => undefined);
    return cause === tokenDigest(refreshToken) && (await this.store.get(userId)) === undefined;
  }

  /**
   * Puts back a link that lapsed only because another process sent a refresh token this one had
   * just spent (see `createTokenSource`), with the tokens the service gave for it. Callers hold the
   * link lock and have checked {@link lapsedOn} under it.
   */
  async restore(userId: string, link: MusicLink): Promise<void> {
    await this.put(userId, link);
    await this.lapses.delete(causeKey(userId)).catch(() => false);
    await this.lapses.delete(userId).catch(() => false);
  }

  /** Whether the member's last link lapsed (see {@link lapse}) and they have not unlinked since. */
  async lapsed(userId: string): Promise<boolean> {
    return (await this.lapses.get(userId).catch(() => undefined)) !== undefined;
  }

  /**
   * Seals again with the current key every link sealed with a previous one, each under its link
   * lock and only if it still is (see {@link get} for why not on read), until `signal` says stop.
   * What is sealed again is the link as stored, fields of a newer version included. Counts what it
   * did: links sealed again, and links it could not (a busy lock, storage, a damaged value).
   */
  async reseal(signal?: AbortSignal): Promise<{ resealed: number; failed: number }> {
    const done = { resealed: 0, failed: 0 };
    for (const userId of (await this.sealedWithOldKeys(signal)).stale) {
      if (signal?.aborted) break;
      try {
        await this.locked(
          userId,
          async () => {
            const sealed = await this.store.get(userId);
            if (sealed === undefined || sealedKeyId(sealed) === this.keyring.currentId) return;
            const plain = unseal(this.keyring, userId, sealed);
            if (!musicLinkSchema.safeParse(plain).success) throw new VaultError('not a music link');
            await this.store.set(userId, seal(this.keyring, userId, plain));
            done.resealed++;
          },
          signal,
        );
      } catch {
        done.failed++;
      }
    }
    return done;
  }

  /**
   * The members whose links are sealed with a previous key of the keyring (`stale`), and how many
   * are sealed with a key it lacks (`unreadable`): one pass over the stored links.
   */
  async sealedWithOldKeys(signal?: AbortSignal): Promise<{ stale: string[]; unreadable: number }> {
    const found = { stale: [] as string[], unreadable: 0 };
    for await (const [userId, sealed] of this.store.iterator?.(undefined) ?? []) {
      if (signal?.aborted) break;
      if (typeof userId !== 'string' || typeof sealed !== 'string') continue;
      const keyId = sealedKeyId(sealed);
      if (keyId === this.keyring.currentId) continue;
      if (keyId !== undefined && this.keyring.get(keyId)) found.stale.push(userId);
      else found.unreadable++;
    }
    return found;
  }

  /**
   * Runs `task` holding the member's link lock ({@link linkLockKey}), across processes sharing the
   * storage, so it never interleaves with a refresh: `withLock`, which keeps the lock while `task`
   * runs (a reseal or a new link's write that outlasted the lock's time let a refresh elsewhere run
   * beside it, and could write back the refresh token that refresh had spent). A lock that cannot
   * be given up afterwards runs out: what the task did stands. Throws `LinkBusyError` when the lock
   * stays taken.
   */
  async locked<T>(userId: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let taken = false;
    try {
      return await withLock(
        this.storage,
        linkLockKey(userId),
        () => {
          taken = true;
          return task();
        },
        { ttlMs: this.lockTtlMs, waitMs: this.waitMs, ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      if (!taken && error instanceof LockBusyError) throw new LinkBusyError('finish with a music link');
      throw error;
    }
  }
}
