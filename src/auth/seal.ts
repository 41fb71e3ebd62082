/**
 * Authenticated encryption for tokens at rest: AES-256-GCM with a random 96-bit IV per value, and
 * the record's owner as additional data, so a sealed value copied under another user fails to open.
 * Each sealed value names the key it was sealed with, so the key can be rotated: values sealed with
 * a previous key still open, and are sealed again with the current one when next written.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/** GCM's recommended IV size (NIST SP 800-38D §8.2), and its full tag: nothing shorter is accepted. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The current encryption key and the previous ones that may still be read. */
export class Keyring {
  readonly currentId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== 32) throw new Error('encryption keys are 32 bytes');
      this.keys.set(Keyring.idOf(key), key);
    }
    this.currentId = Keyring.idOf(current);
  }

  /** A short, non-secret fingerprint of a key: the first 8 hex digits of its SHA-256. */
  static idOf(key: Buffer): string {
    return createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  get(id: string): Buffer | undefined {
    return this.keys.get(id);
  }
}

/** Encrypts `value` (as JSON) for `owner`. Output: `v1.<key id>.<iv>.<tag>.<ciphertext>`. */
export function seal(keyring: Keyring, owner: string, value: unknown): string {
  const key = keyring.get(keyring.currentId)!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(owner, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [
    VERSION,
    keyring.currentId,
    ...[iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url')),
  ].join('.');
}

/** The id of the key a sealed value was sealed with. */
export function sealedKeyId(sealed: string): string | undefined {
  return sealed.split('.')[1];
}

/** Decrypts a value sealed by {@link seal}; throws when the key is unknown, or owner or bytes differ. */
export function unseal(keyring: Keyring, owner: string, sealed: string): unknown {
  const [version, keyId, iv, tag, ciphertext] = sealed.split('.');
  if (version !== VERSION || !keyId || !iv || !tag || ciphertext === undefined)
    throw new Error('not a sealed value');
  const key = keyring.get(keyId);
  if (!key) throw new Error(`sealed with an unknown key (${keyId})`);
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  // GCM would otherwise accept a tag cut down to 4 bytes, which a forger can guess far more easily.
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(owner, 'utf8'));
  decipher.setAuthTag(tagBytes);
  const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as unknown;
}
