/**
 * Account linking as the commands see it: start a link, drop it, read it. The callback server
 * finishes what `startLink` begins.
 */
import type { LinkStates, PendingLink } from './states.js';
import type { MusicLink, TokenVault } from './vault.js';

export interface Linking {
  /** A short URL on the callback server that sends the member to the consent page. */
  startLink(userId: string, notify?: PendingLink['notify']): Promise<string>;
  /** Deletes the member's tokens; false when there was nothing to delete. */
  unlink(userId: string): Promise<boolean>;
  getLink(userId: string): Promise<MusicLink | undefined>;
}

export function createLinking(options: {
  states: LinkStates;
  vault: TokenVault;
  publicUrl: string;
}): Linking {
  return {
    async startLink(userId, notify) {
      const { state } = await options.states.create(userId, notify);
      const url = new URL('/link/start', options.publicUrl);
      url.searchParams.set('state', state);
      return url.toString();
    },
    unlink: (userId) => options.vault.delete(userId),
    getLink: (userId) => options.vault.get(userId),
  };
}
