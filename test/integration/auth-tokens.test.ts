import { Keyring } from '../../src/auth/seal.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createClient } from '@keyv/redis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createLinking } from '../../src/auth/linking.js';
import { OAuthError, type TokenSet } from '../../src/auth/oauth.js';
import { LinkStates } from '../../src/auth/states.js';
import { createTokenSource, NotLinkedError, RelinkRequiredError } from '../../src/auth/tokens.js';
import { TokenVault } from '../../src/auth/vault.js';
import { describeForUser } from '../../src/bot/errors.js';
import { UpstreamError } from '../../src/services/http/errors.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import { linkFactory } from '../fixtures/links.js';
import { cleanRedisPrefix, haveRedis, REDIS_URL, uniquePrefix } from '../helpers/services.js';

const redisReady = await haveRedis();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function sqliteStorage(dataDir?: string): Promise<Storage> {
  const dir = dataDir ?? (await mkdtemp(path.join(tmpdir(), 'bot-tokens-')));
  const storage = await createStorage({ dataDir: dir });
  cleanups.push(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });
  return storage;
}

/** A token endpoint that answers one refresh, `ms` late, with new tokens. */
function slowIssuer(ms: number, prefix = 'late') {
  return {
    async refresh(): Promise<TokenSet> {
      await delay(ms);
      return {
        accessToken: `${prefix}-access`,
        refreshToken: `${prefix}-refresh`,
        expiresInSeconds: 3600,
        scopes: [],
      };
    },
  };
}

/** Storage on which a claim cannot be made to last longer (as while the backend is out of reach). */
function unkept(storage: Storage): Storage {
  return { ...storage, extend: () => Promise.resolve(false) };
}

/**
 * Storage with a link for `u1` whose access token has expired and whose refresh token the rotating
 * issuer takes; `clock.now` is the time for the token source.
 */
async function expiredRotatingLink() {
  const storage = await sqliteStorage();
  const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
  const issuer = rotatingIssuer();
  const clock = { now: Date.now() };
  const link = linkFactory({ expiresAt: clock.now - 1 });
  issuer.issue(link.refreshToken);
  await vault.put('u1', link);
  return { storage, vault, issuer, clock };
}

function linkingOn(storage: Storage, vault: TokenVault, key: Keyring) {
  return createLinking({ states: new LinkStates(storage, key), vault, publicUrl: 'http://127.0.0.1:1' });
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
    const { storage, vault, issuer, clock } = await expiredRotatingLink();
    const source = createTokenSource({ vault, oauth: issuer, storage, now: () => clock.now });
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const before = (await vault.get('u1'))!.refreshToken;
      seen.add(before);
      await source.getAccessToken('u1');
      const after = (await vault.get('u1'))!.refreshToken;
      expect(after).not.toBe(before);
      expect(seen.has(after)).toBe(false);
      clock.now += 3_600_000;
    }
    expect(issuer.calls).toBe(50);
  });

  it('keeps what was done under the link lock when the lock cannot be given up afterwards', async () => {
    const storage = await sqliteStorage();
    // Storage that stores but cannot release a lock (out of reach for a moment): it runs out.
    const stuck: Storage = { ...storage, release: () => Promise.reject(new Error('storage out of reach')) };
    const vault = new TokenVault(stuck, new Keyring(randomBytes(32)));
    const link = linkFactory();
    await expect(vault.locked('u1', () => vault.put('u1', link))).resolves.toBeUndefined();
    expect((await vault.get('u1'))?.accessToken).toBe(link.accessToken);

    const issuer = rotatingIssuer();
    const expired = linkFactory({ expiresAt: Date.now() - 1 });
    issuer.issue(expired.refreshToken);
    await vault.put('u2', expired);
    const source = createTokenSource({ vault, oauth: issuer, storage: stuck });
    const token = await source.getAccessToken('u2');
    expect(token).not.toBe(expired.accessToken);
    expect((await vault.get('u2'))?.accessToken).toBe(token);
  });

  // Storage refuses writes after the refresh, as the service has already spent the refresh token it
  // replaced: once (a hiccup), or for three seconds (a Redis failover).
  it.each([
    [
      'a failed write of the refreshed tokens',
      () => {
        let failures = 1;
        return () => failures-- > 0;
      },
    ],
    [
      'a storage outage of several seconds just after the refresh',
      () => {
        let until: number | undefined;
        return () => Date.now() < (until ??= Date.now() + 3_000);
      },
    ],
  ])('keeps a rotated link through %s', async (_what, refusals) => {
    const { storage, vault, issuer, clock } = await expiredRotatingLink();
    const put = vault.put.bind(vault);
    const refused = refusals();
    vault.put = async (userId, value) => {
      if (refused()) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      await put(userId, value);
    };
    const source = createTokenSource({ vault, oauth: issuer, storage, now: () => clock.now });
    const token = await source.getAccessToken('u1');
    expect((await vault.get('u1'))?.accessToken).toBe(token);
    // The next refresh sends the new refresh token, which the service takes.
    clock.now += 3_600_000;
    await expect(source.getAccessToken('u1')).resolves.not.toBe(token);
    expect(issuer.calls).toBe(2);
  });

  describe('when storage refuses the refreshed link for longer than the command waits', () => {
    /** The link's writes refused until `refusing.until` (a failover that outlasts the retries). */
    async function outage(refusingForMs: number) {
      const world = await expiredRotatingLink();
      const put = world.vault.put.bind(world.vault);
      const refusing = { until: Number.POSITIVE_INFINITY };
      world.vault.put = async (userId, value) => {
        if (Date.now() < refusing.until) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
        await put(userId, value);
      };
      const storedLater: string[] = [];
      const source = createTokenSource({
        vault: world.vault,
        oauth: world.issuer,
        storage: world.storage,
        now: () => world.clock.now,
        storeRetryMs: 200,
        onStoredLater: (outcome) => storedLater.push(outcome),
      });
      cleanups.push(() => source.close());
      const token = await source.getAccessToken('u1');
      refusing.until = Date.now() + refusingForMs;
      return { ...world, source, token, storedLater };
    }

    it('answers with the new token, serves it from memory, and stores the link once storage takes it', async () => {
      const { vault, issuer, clock, source, token, storedLater } = await outage(600);
      const spent = (await vault.get('u1'))?.refreshToken;
      expect(token).toMatch(/^canary-access-/);
      // Still refusing: the next command gets the same token, with no second refresh (which would
      // send the refresh token the service has spent).
      await expect(source.getAccessToken('u1')).resolves.toBe(token);
      expect(issuer.calls).toBe(1);
      await vi.waitFor(async () => expect((await vault.get('u1'))?.accessToken).toBe(token), {
        timeout: 5_000,
        interval: 50,
      });
      expect(storedLater).toEqual(['stored']);
      expect((await vault.get('u1'))?.refreshToken).not.toBe(spent);
      // An hour on, the stored refresh token is the one the service takes.
      clock.now += 3_600_000;
      await expect(source.getAccessToken('u1')).resolves.not.toBe(token);
      expect(issuer.calls).toBe(2);
    });

    it('puts the link back if another process sent the spent refresh token meanwhile and lapsed it', async () => {
      const { vault, issuer, storage, clock, token, storedLater } = await outage(600);
      const elsewhere = createTokenSource({ vault, oauth: issuer, storage, now: () => clock.now });
      // Another process reads the stored link, its token long expired, and sends its refresh token.
      clock.now += 3_600_000;
      await expect(elsewhere.getAccessToken('u1')).rejects.toThrow(RelinkRequiredError);
      await vi.waitFor(() => expect(storedLater).toEqual(['stored']), { timeout: 5_000, interval: 50 });
      expect((await vault.get('u1'))?.accessToken).toBe(token);
    });

    it('writes nothing back once the member has unlinked meanwhile', async () => {
      const { vault, storage, source, storedLater } = await outage(600);
      // The outage refuses writes of the link, not its removal.
      expect(await linkingOn(storage, vault, new Keyring(randomBytes(32))).unlink('u1')).toBe('unlinked');
      await vi.waitFor(() => expect(storedLater).toEqual(['dropped']), { timeout: 5_000, interval: 50 });
      expect(await vault.get('u1')).toBeUndefined();
      await expect(source.getAccessToken('u1')).rejects.toThrow(NotLinkedError);
    });

    it('stores the expiry the tokens had when they came, not when storage took them', async () => {
      const { vault, clock, token, storedLater } = await outage(600);
      const refreshedAt = clock.now;
      clock.now += 1_800_000;
      await vi.waitFor(() => expect(storedLater).toEqual(['stored']), { timeout: 5_000, interval: 50 });
      expect(await vault.get('u1')).toMatchObject({ accessToken: token, expiresAt: refreshedAt + 3_600_000 });
    });

    it('never sends the spent refresh token again, even for a read of the link begun before it was kept', async () => {
      const { storage, vault, issuer, clock } = await expiredRotatingLink();
      const put = vault.put.bind(vault);
      vault.put = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
      const get = vault.get.bind(vault);
      let slow = false;
      vault.get = async (userId) => {
        const link = await get(userId);
        if (slow) {
          slow = false;
          await delay(600);
        }
        return link;
      };
      const source = createTokenSource({
        vault,
        oauth: issuer,
        storage,
        now: () => clock.now,
        storeRetryMs: 200,
      });
      cleanups.push(() => source.close());
      const first = source.getAccessToken('u1');
      // This one reads the stored (expired) link now and gets it back only after the first has kept
      // its refresh for later.
      await delay(5);
      slow = true;
      const second = source.getAccessToken('u1');
      const token = await first;
      await expect(second).resolves.toBe(token);
      expect(issuer.calls).toBe(1);
      vault.put = put;
    });

    it('stops serving the kept token once the member unlinks, without waiting for the next try', async () => {
      const { vault, storage, source } = await outage(60_000);
      expect(await linkingOn(storage, vault, new Keyring(randomBytes(32))).unlink('u1')).toBe('unlinked');
      await expect(source.getAccessToken('u1')).rejects.toThrow(NotLinkedError);
    });

    it('gives up when the bot stops first, at once, and says so', async () => {
      const { vault, source, token, storedLater } = await outage(60_000);
      // Its pauses between tries have grown to over a second by now: stopping does not wait one out.
      await delay(2_000);
      const stoppedAt = performance.now();
      await source.close();
      expect(performance.now() - stoppedAt).toBeLessThan(500);
      expect(storedLater).toEqual(['lost']);
      expect((await vault.get('u1'))?.accessToken).not.toBe(token);
    });
  });

  it('keeps a rotated link through a failed read of the link just after the refresh', async () => {
    const { storage, vault, issuer, clock } = await expiredRotatingLink();
    // The read that checks the link is still the one refreshed fails once (a hiccup), after the
    // service has spent the refresh token it replaced.
    const get = vault.get.bind(vault);
    let failed = false;
    vault.get = async (userId) => {
      // The first read once the service has answered the refresh.
      if (issuer.calls === 1 && !failed) {
        failed = true;
        throw new Error('storage hiccup');
      }
      return get(userId);
    };
    const source = createTokenSource({ vault, oauth: issuer, storage, now: () => clock.now });
    const token = await source.getAccessToken('u1');
    expect((await get('u1'))?.accessToken).toBe(token);
    clock.now += 3_600_000;
    await expect(source.getAccessToken('u1')).resolves.not.toBe(token);
    expect(issuer.calls).toBe(2);
  });

  it('drops a link whose refresh token was refused and asks the member to link again', async () => {
    const storage = await sqliteStorage();
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    await vault.put('u1', linkFactory({ expiresAt: Date.now() - 1 }));
    const source = createTokenSource({ vault, oauth: rotatingIssuer(), storage });
    await expect(source.getAccessToken('u1')).rejects.toThrow(RelinkRequiredError);
    expect(await vault.get('u1')).toBeUndefined();
    // Asked again, here or by another process on the same storage: still "expired", not "never linked".
    await expect(source.getAccessToken('u1')).rejects.toThrow(RelinkRequiredError);
    const elsewhere = createTokenSource({
      vault: new TokenVault(storage, new Keyring(randomBytes(32))),
      oauth: rotatingIssuer(),
      storage,
    });
    await expect(elsewhere.getAccessToken('u1')).rejects.toThrow(RelinkRequiredError);
    // Unlinked by the member: no link at all.
    await vault.delete('u1');
    await expect(source.getAccessToken('u1')).rejects.toThrow(NotLinkedError);
  });
});

describe('a refresh racing an unlink or a new link', () => {
  it('stays unlinked when the member unlinks while a refresh waits for the token endpoint', async () => {
    const storage = await sqliteStorage();
    const key = new Keyring(randomBytes(32));
    const vault = new TokenVault(storage, key);
    await vault.put('u1', linkFactory({ expiresAt: Date.now() - 1 }));
    const source = createTokenSource({ vault, oauth: slowIssuer(300), storage });
    const refreshing = source.getAccessToken('u1');
    await delay(100);
    expect(await linkingOn(storage, vault, key).unlink('u1')).toBe('unlinked');
    // Whether the refresh's caller still got a token depends on who went first; the link is gone.
    await refreshing.catch(() => undefined);
    expect(await vault.get('u1')).toBeUndefined();
    await expect(source.getAccessToken('u1')).rejects.toThrow(NotLinkedError);
  });

  it('drops the answer of a refresh that outlived its lock when the member unlinked meanwhile', async () => {
    const storage = await sqliteStorage();
    const key = new Keyring(randomBytes(32));
    const vault = new TokenVault(storage, key);
    await vault.put('u1', linkFactory({ expiresAt: Date.now() - 1 }));
    // The lock lasts 50 ms and cannot be kept, the token endpoint takes 300: the unlink does not
    // have to wait.
    const source = createTokenSource({
      vault,
      oauth: slowIssuer(300),
      storage: unkept(storage),
      lockTtlMs: 50,
    });
    const refreshing = source.getAccessToken('u1').catch((e: unknown) => e);
    await delay(150);
    expect(await linkingOn(storage, vault, key).unlink('u1')).toBe('unlinked');
    expect(await refreshing).toBeInstanceOf(NotLinkedError);
    expect(await vault.get('u1')).toBeUndefined();
  });

  it('keeps a new link made while a refresh of the old one outlived its lock', async () => {
    const storage = await sqliteStorage();
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    await vault.put('u1', linkFactory({ accountId: 'old-account', expiresAt: Date.now() - 1 }));
    const source = createTokenSource({
      vault,
      oauth: slowIssuer(300),
      storage: unkept(storage),
      lockTtlMs: 50,
    });
    const refreshing = source.getAccessToken('u1');
    await delay(150);
    const relinked = linkFactory({ accountId: 'new-account' });
    await vault.locked('u1', () => vault.put('u1', relinked));
    // The caller gets the new link's token, and the old account's answer is not stored.
    expect(await refreshing).toBe(relinked.accessToken);
    expect(await vault.get('u1')).toEqual(relinked);
  });

  it('keeps the link when a second process needs a token while the first waits longer than the lock lasts for the token endpoint', async () => {
    const storage = await sqliteStorage();
    const vault = new TokenVault(storage, new Keyring(randomBytes(32)));
    const link = linkFactory({ expiresAt: Date.now() - 1 });
    await vault.put('u1', link);
    // The service rotates at once (the sent refresh token is spent) and answers 1.5 s later.
    const valid = new Set([link.refreshToken]);
    let sent = 0;
    const oauth = {
      async refresh(refreshToken: string): Promise<TokenSet> {
        sent++;
        const ok = valid.delete(refreshToken);
        await delay(1_500);
        if (!ok) throw new OAuthError('invalid_grant', 'Invalid refresh token');
        valid.add('rotated-refresh');
        return {
          accessToken: 'rotated-access',
          refreshToken: 'rotated-refresh',
          expiresInSeconds: 3600,
          scopes: [],
        };
      },
    };
    // Two processes on one store, with a lock of 300 ms: the second asks while the first still waits,
    // long after the lock would have run out unkept.
    const [first, second] = [0, 1].map(() => createTokenSource({ vault, oauth, storage, lockTtlMs: 300 }));
    const one = first!.getAccessToken('u1');
    await delay(600);
    const two = second!.getAccessToken('u1');
    expect(await Promise.all([one, two])).toEqual(['rotated-access', 'rotated-access']);
    expect(sent).toBe(1);
    expect((await vault.get('u1'))?.refreshToken).toBe('rotated-refresh');
  });

  it('makes an unlink wait for a refresh that is storing its answer', async () => {
    const storage = await sqliteStorage();
    const key = new Keyring(randomBytes(32));
    const vault = new TokenVault(storage, key);
    await vault.put('u1', linkFactory({ expiresAt: Date.now() - 1 }));
    // The refresh's write is slow to reach storage (a busy disk, a far Redis).
    const put = vault.put.bind(vault);
    vault.put = async (userId, link) => {
      await delay(300);
      await put(userId, link);
    };
    const source = createTokenSource({ vault, oauth: slowIssuer(10), storage });
    const refreshing = source.getAccessToken('u1');
    await delay(150);
    expect(await linkingOn(storage, vault, key).unlink('u1')).toBe('unlinked');
    await refreshing;
    expect(await vault.get('u1')).toBeUndefined();
  });

  it('tells a member whose refresh waits on a stuck one elsewhere that the service is not answering', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-tokens-'));
    const key = new Keyring(randomBytes(32));
    const [a, b] = [await sqliteStorage(dataDir), await createStorage({ dataDir })];
    cleanups.unshift(() => b.close());
    await new TokenVault(a, key).put('u1', linkFactory({ expiresAt: Date.now() - 1 }));
    // Process A's refresh hangs on the token endpoint; process B gives up waiting for it.
    const stuck = createTokenSource({ vault: new TokenVault(a, key), oauth: slowIssuer(1_000), storage: a });
    const hanging = stuck.getAccessToken('u1');
    await delay(50);
    const waiting = createTokenSource({
      vault: new TokenVault(b, key),
      oauth: slowIssuer(0),
      storage: b,
      waitMs: 200,
    });
    const error = await waiting.getAccessToken('u1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(describeForUser(error)).toBe(
      'The music service is not answering right now. Please try again in a minute.',
    );
    await hanging;
  });
});

describe('key rotation', () => {
  it('never writes back a spent refresh token when a read overlaps a refresh', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-tokens-'));
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const [writer, reader] = [await sqliteStorage(dataDir), await createStorage({ dataDir })];
    cleanups.unshift(() => reader.close());
    await new TokenVault(writer, new Keyring(oldKey)).put('u1', linkFactory({ expiresAt: Date.now() - 1 }));
    const rotated = new Keyring(newKey, [oldKey]);

    // A plain read (say /music status) in another process, whose storage answers slowly.
    const links = reader.ns<string>('links');
    const get = links.get.bind(links);
    links.get = (async (k: string) => {
      const value = await get(k);
      await delay(200);
      return value;
    }) as typeof links.get;
    const reading = new TokenVault(reader, rotated).get('u1');
    await delay(20);

    const issuer = rotatingIssuer();
    issuer.issue((await new TokenVault(writer, rotated).get('u1'))!.refreshToken);
    const source = createTokenSource({
      vault: new TokenVault(writer, rotated),
      oauth: issuer,
      storage: writer,
    });
    await source.getAccessToken('u1');
    const refreshed = (await new TokenVault(writer, rotated).get('u1'))!;
    await reading;

    // The refreshed link is what is stored, sealed with the current key alone.
    expect(await new TokenVault(writer, new Keyring(newKey)).get('u1')).toEqual(refreshed);
  });
});

describe('the link lock', () => {
  it('stays taken while a slow task holds it, past the time a lock lasts on its own', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'bot-tokens-'));
    const key = new Keyring(randomBytes(32));
    const [a, b] = [await sqliteStorage(dataDir), await createStorage({ dataDir })];
    cleanups.unshift(() => b.close());
    const order: string[] = [];
    // A reseal (or a new link's write) whose storage answers slowly, in one process...
    const slow = new TokenVault(a, key, { lockTtlMs: 200 }).locked('u1', async () => {
      await delay(700);
      order.push('slow task done');
    });
    await delay(300);
    // ...and a refresh in another, which must not start before it is done.
    await new TokenVault(b, key, { lockTtlMs: 200 }).locked('u1', () => {
      order.push('other task started');
      return Promise.resolve();
    });
    await slow;
    expect(order).toEqual(['slow task done', 'other task started']);
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
