/**
 * OAuth `state` values for account linking (RFC 6749 §10.12): random, single-use, expiring after
 * ten minutes and bound to the Discord user who asked. Stored sealed under a hash of the state,
 * so neither the state nor the PKCE verifier is readable in storage.
 *
 * The link the member gets in Discord carries a ticket, not the state: a random value of its own
 * that the start page trades for the state (kept sealed under the ticket's hash). The state goes
 * only to the consent page and back to the callback, never into a Discord message.
 */
import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { z } from 'zod';
import type { Storage } from '../storage/index.js';
import { seal, unseal, type Keyring } from './seal.js';

export const STATE_LIFETIME_MS = 10 * 60_000;
/** Records outlive their validity a while, so a late click reads "expired" rather than "unknown". */
const RECORD_RETENTION_MS = 60 * 60_000;
/** How long a used state is remembered, so a replay reads "already used". */
const USED_RETENTION_MS = 24 * 60 * 60_000;

/** The Discord account a link is for, as its start page names it to whoever opens the link. */
const discordAccountSchema = z.object({ username: z.string(), displayName: z.string().optional() });
export type DiscordAccount = z.infer<typeof discordAccountSchema>;

const pendingLinkSchema = z.object({
  userId: z.string(),
  /** Absent on links started before the start page named the account. */
  account: discordAccountSchema.optional(),
  verifier: z.string(),
  createdAt: z.number(),
  /** Where to tell Discord the link completed (the `/music link` interaction), if anywhere. */
  notify: z.object({ applicationId: z.string(), interactionToken: z.string() }).optional(),
});
export type PendingLink = z.infer<typeof pendingLinkSchema>;

/** What a start link's ticket is stored as: the state it stands for. */
const ticketSchema = z.object({ state: z.string() });

/**
 * What became of a used state, remembered beside its used marker so that coming back to it (a
 * reload, the same start link again) reads as what happened rather than as a success.
 */
export type LinkOutcome = 'linked' | 'denied' | 'expired' | 'withdrawn' | 'failed';
const OUTCOMES: ReadonlySet<string> = new Set<LinkOutcome>([
  'linked',
  'denied',
  'expired',
  'withdrawn',
  'failed',
]);

export type TakeResult =
  | { kind: 'ok'; link: PendingLink }
  | { kind: 'expired' }
  | { kind: 'withdrawn' }
  /**
   * `outcome` is absent while the callback that used it is still at work, when it ended without
   * saying (a crash), and for states used before outcomes were kept.
   */
  | { kind: 'replayed'; outcome?: LinkOutcome | undefined }
  | { kind: 'unknown' };

/** The key that remembers when a member last unlinked (see {@link LinkStates.withdraw}). */
const withdrawnKey = (userId: string) => `withdrawn:${userId}`;
/** The key that remembers what became of a used state (see {@link LinkStates.settle}). */
const outcomeKey = (id: string) => `outcome:${id}`;

export function hashState(state: string): string {
  return createHash('sha256').update(state).digest('base64url');
}

export class LinkStates {
  private readonly store;

  constructor(
    private readonly storage: Storage,
    private readonly keyring: Keyring,
    private readonly now: () => number = Date.now,
  ) {
    this.store = storage.ns<string>('oauth-states');
  }

  /**
   * Starts a link for `userId`: a new state and PKCE verifier (RFC 7636 §4.1), and the ticket for
   * the start link.
   */
  async create(
    userId: string,
    extra: { account?: DiscordAccount | undefined; notify?: PendingLink['notify'] } = {},
  ): Promise<{ state: string; ticket: string; link: PendingLink }> {
    const state = oauth.generateRandomState();
    const ticket = oauth.generateRandomState();
    const link: PendingLink = {
      userId,
      ...(extra.account ? { account: extra.account } : {}),
      verifier: oauth.generateRandomCodeVerifier(),
      createdAt: this.now(),
      ...(extra.notify ? { notify: extra.notify } : {}),
    };
    const id = hashState(state);
    const ticketId = `ticket:${hashState(ticket)}`;
    await this.store.set(id, seal(this.keyring, id, link), RECORD_RETENTION_MS);
    await this.store.set(ticketId, seal(this.keyring, ticketId, { state }), RECORD_RETENTION_MS);
    return { state, ticket, link };
  }

  /** The state a start link's ticket stands for; undefined for a ticket never issued (or long gone). */
  async stateOf(ticket: string): Promise<string | undefined> {
    const id = `ticket:${hashState(ticket)}`;
    const sealed = await this.store.get(id);
    if (sealed === undefined) return undefined;
    try {
      return ticketSchema.parse(unseal(this.keyring, id, sealed)).state;
    } catch {
      return undefined;
    }
  }

  /** Reads a pending link without using it up (for the redirect to the consent page). */
  peek(state: string): Promise<TakeResult> {
    return this.peekHash(hashState(state));
  }

  /**
   * {@link peek} by the state's hash (see {@link hashState}), for a page that names its link without
   * the state: what became of a link when the browser no longer says which state it is for.
   */
  async peekHash(id: string): Promise<TakeResult> {
    const link = await this.read(id);
    if (!link) return this.used(id);
    if (this.now() - link.createdAt > STATE_LIFETIME_MS) return { kind: 'expired' };
    if (await this.withdrawnFrom(link)) return { kind: 'withdrawn' };
    return { kind: 'ok', link };
  }

  /**
   * Withdraws every link `userId` started until now: a member who unlinks does not stay linkable
   * through a link made before (one they shared by mistake, say). Remembered as long as a pending
   * link is kept.
   */
  async withdraw(userId: string): Promise<void> {
    await this.store.set(withdrawnKey(userId), String(this.now()), RECORD_RETENTION_MS);
  }

  /** Whether `link` was started before its member last unlinked (see {@link withdraw}). */
  async withdrawnFrom(link: PendingLink): Promise<boolean> {
    const at = Number(await this.store.get(withdrawnKey(link.userId)));
    return Number.isFinite(at) && link.createdAt <= at;
  }

  /** Uses a state up: exactly one caller, across processes, gets `ok` for a given state. */
  async take(state: string): Promise<TakeResult> {
    const id = hashState(state);
    // Read before claiming: a state we never issued must not leave a row behind, or anyone could
    // fill storage by sending random states to the callback.
    const link = await this.read(id);
    if (!link) return this.used(id);
    const first = await this.storage.claim('oauth-states', `used:${id}`, USED_RETENTION_MS);
    if (!first) return this.used(id);
    await this.store.delete(id);
    if (this.now() - link.createdAt > STATE_LIFETIME_MS) {
      await this.settleIfCan(state, 'expired');
      return { kind: 'expired' };
    }
    if (await this.withdrawnFrom(link)) {
      await this.settleIfCan(state, 'withdrawn');
      return { kind: 'withdrawn' };
    }
    return { kind: 'ok', link };
  }

  /**
   * {@link settle}, best effort: the state is used up already, and the page for what happened must
   * still be shown. Unwritten, coming back to it reads as used, without saying how.
   */
  private async settleIfCan(state: string, outcome: LinkOutcome): Promise<void> {
    await this.settle(state, outcome).catch(() => undefined);
  }

  /**
   * Remembers what became of a state {@link take} handed out as `ok`, for as long as it is
   * remembered as used.
   */
  async settle(state: string, outcome: LinkOutcome): Promise<void> {
    await this.store.set(outcomeKey(hashState(state)), outcome, USED_RETENTION_MS);
  }

  /** A state with no pending link: used (and what became of it), or never issued (or long gone). */
  private async used(id: string): Promise<TakeResult> {
    if (!(await this.storage.held('oauth-states', `used:${id}`))) return { kind: 'unknown' };
    const outcome = await this.store.get(outcomeKey(id));
    return { kind: 'replayed', outcome: OUTCOMES.has(outcome ?? '') ? (outcome as LinkOutcome) : undefined };
  }

  private async read(id: string): Promise<PendingLink | undefined> {
    const sealed = await this.store.get(id);
    if (sealed === undefined) return undefined;
    try {
      return pendingLinkSchema.parse(unseal(this.keyring, id, sealed));
    } catch {
      return undefined;
    }
  }
}
