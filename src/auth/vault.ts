/**
 * The token vault: each Discord user's music link, encrypted at rest in the `links` namespace.
 */
import { z } from 'zod';
import type { Storage } from '../storage/index.js';
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

/** Thrown when a stored link cannot be decrypted (wrong TOKEN_ENCRYPTION_KEY, or tampering). */
export class VaultError extends Error {
  override readonly name = 'VaultError';
}

export class TokenVault {
  private readonly store;

  constructor(
    storage: Storage,
    private readonly keyring: Keyring,
  ) {
    this.store = storage.ns<string>('links');
  }

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
    // Key rotation: a link sealed with a previous key is sealed again with the current one.
    if (sealedKeyId(sealed) !== this.keyring.currentId) await this.put(userId, parsed.data);
    return parsed.data;
  }

  async put(userId: string, link: MusicLink): Promise<void> {
    await this.store.set(userId, seal(this.keyring, userId, musicLinkSchema.parse(link)));
  }

  async delete(userId: string): Promise<boolean> {
    return this.store.delete(userId);
  }
}
