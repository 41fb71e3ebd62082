import { Keyring } from '../../src/auth/seal.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createClient } from '@keyv/redis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { OAuthError, type TokenSet } from '../../src/auth/oauth.js';
import { createTokenSource, NotLinkedError, RelinkRequiredError } from '../../src/auth/tokens.js';
import { TokenVault } from '../../src/auth/vault.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { linkFactory } from '../fixtures/links.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function sqliteStorage(): Promise<Storage> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-tokens-'));
  const storage = await createStorage({ dataDir });
  cleanups.push(async () => {
    await storage.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return storage;
}

/** A token endpoint stand-in with rotation: each refresh token works once. */
function rotatingIssuer() {
  const valid = new Set<string>();
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    issue(token: string) {
      valid.add(token);
    },
    async refresh(refreshToken: string): Promise<TokenSet> {
      calls++;
      await delay(20);
      if (!valid.delete(refreshToken)) throw new OAuthError('invalid_grant', 'Invalid refresh token');
      const next = `canary-refresh-${randomBytes(6).toString('hex')}`;
      valid.add(next);
      return {
        accessToken: `canary-access-${randomBytes(6).toString('hex')}`,
        refreshToken: next,
        expiresInSeconds: 3600,
        scopes: [],
      };
    },
  };
}

describe('access tokens on demand', () => {
  it('makes one refresh for 200 concurrent calls with an expired token', async () => {
    const storage = await sqliteStorage();
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const issuer = rotatingIssuer();
    const link = linkFactory({ expiresAt: Date.now() - 1 });
    issuer.issue(link.refreshToken);
    await vault.put('u1', link);
    const source = createTokenSource({ vault, oauth: issuer, storage });
    const tokens = await Promise.all(Array.from({ length: 200 }, () => source.getAccessToken('u1')));
    expect(issuer.calls).toBe(1);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(link.accessToken);
  });

  it('keeps working across 50 refreshes with rotation, never writing a stale refresh token back', async () => {
    const storage = await sqliteStorage();
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const issuer = rotatingIssuer();
    let now = Date.now();
    const link = linkFactory({ expiresAt: now - 1 });
    issuer.issue(link.refreshToken);
    await vault.put('u1', link);
    const source = createTokenSource({ vault, oauth: issuer, storage, now: () => now });
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const before = (await vault.get('u1'))!.refreshToken;
      seen.add(before);
      await source.getAccessToken('u1');
      const after = (await vault.get('u1'))!.refreshToken;
      expect(after).not.toBe(before);
      expect(seen.has(after)).toBe(false);
      now += 3_600_000;
    }
    expect(issuer.calls).toBe(50);
  });

  it('drops a link whose refresh token was refused and asks the member to link again', async () => {
    const storage = await sqliteStorage();
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    await vault.put('u1', linkFactory({ expiresAt: Date.now() - 1 }));
    const source = createTokenSource({ vault, oauth: rotatingIssuer(), storage });
    await expect(source.getAccessToken('u1')).rejects.toThrow(RelinkRequiredError);
    expect(await vault.get('u1')).toBeUndefined();
    await expect(source.getAccessToken('u1')).rejects.toThrow(NotLinkedError);
  });
});

describe.runIf(redisReady)('access tokens with two processes on one Redis', () => {
  const prefix = uniquePrefix('tokens');
  afterAll(async () => {
    await cleanRedisPrefix(prefix);
  });

  it('makes one refresh for 200 concurrent calls split over two token sources', async () => {
    const key = new Keyring(randomBytes(32));
    const [a, b] = await Promise.all([
      createStorage({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix: prefix }),
      createStorage({ dataDir: 'unused', redisUrl: REDIS_URL, redisPrefix: prefix }),
    ]);
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const issuer = rotatingIssuer();
    const link = linkFactory({ expiresAt: Date.now() - 1 });
    issuer.issue(link.refreshToken);
    await new TokenVault(a, key).put('u1', link);
    const sources = [a, b].map((storage) =>
      createTokenSource({ vault: new TokenVault(storage, key), oauth: issuer, storage }),
    );
    const tokens = await Promise.all(
      Array.from({ length: 200 }, (_, i) => sources[i % 2]!.getAccessToken('u1')),
    );
    expect(issuer.calls).toBe(1);
    expect(new Set(tokens).size).toBe(1);

    const raw = createClient({ url: REDIS_URL });
    await raw.connect();
    const values: string[] = [];
    for await (const keys of raw.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
      for (const k of keys) {
        const type = await raw.type(k);
        if (type === 'string') values.push((await raw.get(k)) ?? '');
      }
    }
    await raw.close();
    expect(values.length).toBeGreaterThan(0);
    const stored = (await new TokenVault(a, key).get('u1'))!;
    for (const value of values) {
      expect(value).not.toContain(stored.accessToken);
      expect(value).not.toContain(stored.refreshToken);
    }
  });
});
