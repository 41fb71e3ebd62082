import { Routes, type REST } from 'discord.js';
import type { PendingLink } from '../auth/states.js';
import type { MusicLink } from '../auth/vault.js';
import { renderLinked } from './render/account.js';

/**
 * Edits the member's ephemeral `/music link` message once the link is made. A state lives 10
 * minutes and an interaction token 15, so a completed link always finds the token still valid.
 * REST only (an interaction webhook, no gateway), so a separate web process can send it too.
 */
export function createLinkNotifier(rest: REST) {
  return async (_userId: string, link: MusicLink, notify: PendingLink['notify']): Promise<void> => {
    if (!notify) return;
    await rest.patch(Routes.webhookMessage(notify.applicationId, notify.interactionToken), {
      body: { embeds: [renderLinked(link).toJSON()], components: [], allowed_mentions: { parse: [] } },
      auth: false,
    });
  };
}
