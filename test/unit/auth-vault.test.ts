import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MusicOAuth } from '../../src/auth/oauth.js';
import { Keyring, seal, unseal } from '../../src/auth/seal.js';
import { hashState, LinkStates, STATE_LIFETIME_MS } from '../../src/auth/states.js';
import { TokenVault, VaultError } from '../../src/auth/vault.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { linkFactory } from '../fixtures/links.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function sqliteStorage(): Promise<{ storage: Storage; file: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-auth-'));
  const storage = await createStorage({ dataDir });
  cleanups.push(async () => {
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return { storage, file: path.join(dataDir, 'bot.sqlite') };
}

describe('PKCE', () => {
  it('derives the RFC 7636 Appendix B challenge from its verifier', async () => {
    expect(await MusicOAuth.pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('asks for S256 and exactly the scopes the features need', () => {
    const oauth = new MusicOAuth({
      authUrl: 'https://auth.test',
      clientId: 'cid',
      redirectUri: 'https://bot.test/callback',
    });
    const url = new URL(oauth.authorizeUrl('s'.repeat(43), 'c'.repeat(43)));
    expect(url.origin + url.pathname).toBe('https://auth.test/authorize');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe('https://bot.test/callback');
    expect(url.searchParams.get('scope')?.split(' ').sort()).toEqual([
      'playlist-modify-private',
      'playlist-modify-public',
      'playlist-read-collaborative',
      'playlist-read-private',
      'user-library-modify',
      'user-modify-playback-state',
      'user-read-playback-state',
      'user-read-private',
    ]);
  });
});

describe('sealed values', () => {
  const key = new Keyring(randomBytes(32));
  it('open only for the owner they were sealed for, with the same key', () => {
    const sealed = seal(key, 'user-1', { a: 1 });
    expect(unseal(key, 'user-1', sealed)).toEqual({ a: 1 });
    expect(() => unseal(key, 'user-2', sealed)).toThrow();
    expect(() => unseal(new Keyring(randomBytes(32)), 'user-1', sealed)).toThrow();
    // One bit of the ciphertext flipped (changing its last characters could leave the decoded bytes
    // as they were, base64's padding bits being free).
    const parts = sealed.split('.');
    const bytes = Buffer.from(parts[4]!, 'base64url');
    bytes[0]! ^= 1;
    const tampered = [...parts.slice(0, 4), bytes.toString('base64url')].join('.');
    expect(() => unseal(key, 'user-1', tampered)).toThrow();
  });

  it('refuse a tag cut short or an IV of another size, like any other value that does not open', () => {
    const sealed = seal(key, 'user-1', { a: 1 });
    const [version, id, iv, tag, ciphertext] = sealed.split('.') as [string, string, string, string, string];
    const bytes = (text: string) => Buffer.from(text, 'base64url');
    const join = (parts: { iv?: Buffer; tag?: Buffer }) =>
      [
        version,
        id,
        (parts.iv ?? bytes(iv)).toString('base64url'),
        (parts.tag ?? bytes(tag)).toString('base64url'),
        ciphertext,
      ].join('.');
    // GCM alone accepts a tag's first 4 bytes, which are easily guessed.
    for (const length of [4, 8, 12, 15]) {
      expect(() => unseal(key, 'user-1', join({ tag: bytes(tag).subarray(0, length) }))).toThrow(
        'not a sealed value',
      );
    }
    expect(() => unseal(key, 'user-1', join({ iv: Buffer.concat([bytes(iv), Buffer.alloc(4)]) }))).toThrow(
      'not a sealed value',
    );
    expect(() => unseal(key, 'user-1', join({ iv: bytes(iv).subarray(0, 8) }))).toThrow('not a sealed value');
    expect(unseal(key, 'user-1', join({}))).toEqual({ a: 1 });
  });
});

describe('the token vault', () => {
  it('keeps no token in clear in the SQLite file', async () => {
    const { storage, file } = await sqliteStorage();
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const link = linkFactory();
    await vault.put('user-1', link);
    expect(await vault.get('user-1')).toEqual(link);
    const raw = await readFile(file);
    expect(raw.includes(link.accessToken)).toBe(false);
    expect(raw.includes(link.refreshToken)).toBe(false);
    expect(raw.includes('account-1')).toBe(false);
  });

  it('says clearly when the encryption key changed, instead of returning garbage', async () => {
    const { storage } = await sqliteStorage();
    await new TokenVault(storage, new Keyring(randomBytes(32))).put('user-1', linkFactory());
    await expect(new TokenVault(storage, new Keyring(randomBytes(32))).get('user-1')).rejects.toThrow(
      VaultError,
    );
  });
});

describe('key rotation', () => {
  it('reads links sealed with a previous key, and seals them with the current one when next written', async () => {
    const { storage } = await sqliteStorage();
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const link = linkFactory();
    await new TokenVault(storage, new Keyring(oldKey)).put('user-1', link);

    const rotating = new TokenVault(storage, new Keyring(newKey, [oldKey]));
    expect(await rotating.get('user-1')).toEqual(link);
    // A read writes nothing (a write outside the link lock could undo a refresh): still the old key.
    expect(await new TokenVault(storage, new Keyring(oldKey)).get('user-1')).toEqual(link);
    await expect(new TokenVault(storage, new Keyring(newKey)).get('user-1')).rejects.toThrow(VaultError);

    const refreshed = { ...link, accessToken: 'canary-access-next', refreshedAt: Date.now() };
    await rotating.put('user-1', refreshed);
    expect(await new TokenVault(storage, new Keyring(newKey)).get('user-1')).toEqual(refreshed);
    await expect(new TokenVault(storage, new Keyring(oldKey)).get('user-1')).rejects.toThrow(VaultError);
  });
});

describe('link states', () => {
  it('are single-use: the second use reads as replayed', async () => {
    const { storage } = await sqliteStorage();
    const states = new LinkStates(storage, new Keyring(randomBytes(32)));
    const { state } = await states.create('user-1');
    expect((await states.peek(state)).kind).toBe('ok');
    const results = await Promise.all([states.take(state), states.take(state), states.take(state)]);
    expect(results.map((r) => r.kind).sort()).toEqual(['ok', 'replayed', 'replayed']);
    expect((await states.peek(state)).kind).toBe('replayed');
  });

  it('expire after ten minutes and are bound to the user who asked', async () => {
    const { storage } = await sqliteStorage();
    let now = Date.now();
    const states = new LinkStates(storage, new Keyring(randomBytes(32)), () => now);
    const { state } = await states.create('user-7');
    const found = await states.peek(state);
    expect(found.kind === 'ok' && found.link.userId).toBe('user-7');
    now += STATE_LIFETIME_MS + 1;
    expect((await states.take(state)).kind).toBe('expired');
    expect((await states.take('x'.repeat(43))).kind).toBe('unknown');
  });

  it('remember what became of a used state, and read a marker kept without one as used, saying nothing of how', async () => {
    const { storage } = await sqliteStorage();
    let now = Date.now();
    const states = new LinkStates(storage, new Keyring(randomBytes(32)), () => now);
    const denied = await states.create('user-1');
    expect((await states.take(denied.state)).kind).toBe('ok');
    await states.settle(denied.state, 'denied');
    expect(await states.peek(denied.state)).toEqual({ kind: 'replayed', outcome: 'denied' });
    expect(await states.take(denied.state)).toEqual({ kind: 'replayed', outcome: 'denied' });

    const late = await states.create('user-1');
    now += STATE_LIFETIME_MS + 1;
    expect((await states.take(late.state)).kind).toBe('expired');
    expect(await states.peek(late.state)).toEqual({ kind: 'replayed', outcome: 'expired' });

    // An earlier version's marker (no outcome beside it), and an outcome this version does not know.
    const old = await states.create('user-1');
    expect((await states.take(old.state)).kind).toBe('ok');
    expect(await states.peek(old.state)).toEqual({ kind: 'replayed', outcome: undefined });
    await storage.ns('oauth-states').set(`outcome:${hashState(old.state)}`, 'teleported');
    expect(await states.peek(old.state)).toEqual({ kind: 'replayed', outcome: undefined });
  });

  it('still say a state expired when what became of it cannot be written', async () => {
    const { storage } = await sqliteStorage();
    let now = Date.now();
    const states = new LinkStates(storage, new Keyring(randomBytes(32)), () => now);
    const late = await states.create('user-1');
    now += STATE_LIFETIME_MS + 1;
    states.settle = () => Promise.reject(new Error('storage down'));
    expect((await states.take(late.state)).kind).toBe('expired');
    // Coming back to it: used, without saying how.
    expect(await states.peek(late.state)).toEqual({ kind: 'replayed', outcome: undefined });
  });

  it('write nothing for a state they never issued, and still read a used one as replayed', async () => {
    const { storage } = await sqliteStorage();
    const states = new LinkStates(storage, new Keyring(randomBytes(32)));
    const unknown = 'u'.repeat(43);
    expect((await states.take(unknown)).kind).toBe('unknown');
    expect(await storage.held('oauth-states', `used:${hashState(unknown)}`)).toBe(false);
    expect((await states.take(unknown)).kind).toBe('unknown');

    const { state } = await states.create('user-1');
    expect((await states.take(state)).kind).toBe('ok');
    expect((await states.take(state)).kind).toBe('replayed');
  });
});
