/**
 * Account linking as the commands see it: start a link, drop it, read it. The callback server
 * finishes what `startLink` begins.
 */
import type { DiscordAccount, LinkStates, PendingLink } from './states.js';
import { missingLinkError, type NotLinkedError, type RelinkRequiredError } from './tokens.js';
import type { MusicLink, TokenVault } from './vault.js';

export interface Linking {
  /**
   * A short URL on the callback server whose page names `account` (the Discord account that gets
   * access) and sends the member on to the consent page.
   */
  startLink(
    userId: string,
    extra?: { account?: DiscordAccount | undefined; notify?: PendingLink['notify'] | undefined },
  ): Promise<string>;
  /**
   * Deletes the member's tokens: `unlinked` when there were some, `forgotten` when only the note of
   * a link that lapsed was left (the member is told about it until they link again or unlink),
   * `none` when there was nothing.
   */
  unlink(userId: string): Promise<'unlinked' | 'forgotten' | 'none'>;
  getLink(userId: string): Promise<MusicLink | undefined>;
  /** What to tell a member who has no link: it lapsed (see `TokenVault.lapse`), or there is none. */
  missingLink(userId: string): Promise<RelinkRequiredError | NotLinkedError>;
}

export function createLinking(options: {
  states: LinkStates;
  vault: TokenVault;
  publicUrl: string;
}): Linking {
  return {
    async startLink(userId, extra = {}) {
      const { ticket } = await options.states.create(userId, {
        account: extra.account,
        ...(extra.notify ? { notify: extra.notify } : {}),
      });
      // Under PUBLIC_URL's path too (a proxy may serve the bot under one), as the redirect URI is.
      const url = new URL(`${options.publicUrl}/link/start`);
      // The ticket, never the OAuth state: this URL goes into a Discord message.
      url.searchParams.set('ticket', ticket);
      return url.toString();
    },
    // Under the link lock: a refresh in flight would otherwise write the tokens back when it ends.
    // Links still pending are withdrawn too (see `LinkStates.withdraw`).
    unlink: (userId) =>
      options.vault.locked(userId, async () => {
        await options.states.withdraw(userId);
        const lapsed = await options.vault.lapsed(userId);
        if (await options.vault.delete(userId)) return 'unlinked';
        return lapsed ? 'forgotten' : 'none';
      }),
    getLink: (userId) => options.vault.get(userId),
    missingLink: (userId) => missingLinkError(options.vault, userId),
  };
}

/** The music service is configured but TOKEN_ENCRYPTION_KEY is not: tokens cannot be kept safely. */
export class LinkingOffError extends Error {
  override readonly name = 'LinkingOffError';
  constructor() {
    super(
      'Linking music accounts is switched off on this bot: its owner has not set an encryption key for ' +
        'tokens yet (TOKEN_ENCRYPTION_KEY). Album and artist lookups still work.',
    );
  }
  /** The message is meant for the member. */
  get userMessage(): string {
    return this.message;
  }
}

/** Linking when no encryption key is configured: every use says why it is off. */
export function disabledLinking(): Linking {
  const off = () => Promise.reject(new LinkingOffError());
  return { startLink: off, unlink: off, getLink: off, missingLink: off };
}
