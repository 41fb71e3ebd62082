import { EmbedBuilder } from '@discordjs/builders';
import { SCOPE_WORDS, missingScopes, notGrantedText } from '../../auth/scopes.js';
import type { MusicLink } from '../../auth/vault.js';
import type { CurrentUser } from '../../services/music/index.js';
import { md } from './music-text.js';
import { truncate } from './text.js';

const MUSIC_COLOUR = 0x1db954;

/** `/music link`: what to do, and (when the member is linked already) which account it replaces. */
export function renderLinkPrompt(current?: Pick<MusicLink, 'displayName' | 'accountId'>): EmbedBuilder {
  return new EmbedBuilder()
    .setColor(MUSIC_COLOUR)
    .setTitle('Link your music account')
    .setDescription(
      truncate(
        [
          ...(current === undefined
            ? []
            : [
                `You are linked as **${md(current.displayName ?? current.accountId, 200)}** now: linking an account replaces that link.`,
              ]),
          'Open the button below, sign in to the music service and allow access.',
          'The link is yours alone, works once, and expires in 10 minutes.',
          'This message will change once your account is linked.',
        ].join('\n'),
        4096,
      ),
    );
}

export function renderLinked(
  link: Pick<MusicLink, 'displayName' | 'accountId'> & Partial<Pick<MusicLink, 'scopes'>>,
): EmbedBuilder {
  const missing = link.scopes === undefined ? [] : missingScopes(link.scopes);
  return new EmbedBuilder()
    .setColor(MUSIC_COLOUR)
    .setTitle('Music account linked')
    .setDescription(
      truncate(
        [
          `Linked as **${md(link.displayName ?? link.accountId, 200)}**. Your music commands now use this account.`,
          ...(missing.length === 0 ? [] : [notGrantedText(missing)]),
        ].join('\n'),
        4096,
      ),
    );
}

function premiumText(product: string | undefined): string {
  if (product === 'premium') return 'Yes';
  if (product === 'free' || product === 'open') return 'No: pausing and skipping need premium';
  return 'Unknown: the service does not tell this app (pausing and skipping will say if premium is needed)';
}

/**
 * The account's name and, when the service answered, its user id: the same whether or not it did.
 * The stable account id the link keeps (an opaque one, where the service has it) is shown only when
 * there is nothing else to show.
 */
function linkedAs(link: MusicLink, profile: CurrentUser | undefined): string {
  // The service's answer wins over the name the link kept, a display name removed since included.
  const name = profile === undefined ? link.displayName : profile.display_name;
  const id = profile?.id;
  if (name && id !== undefined) return `${md(name, 200)} (${md(id, 200)})`;
  return md(name || id || link.accountId, 200);
}

/** `/music status`: the linked account, its premium status and the granted scopes. */
export function renderLinkStatus(link: MusicLink, profile: CurrentUser | undefined): EmbedBuilder {
  const scopes = link.scopes;
  const missing = missingScopes(scopes);
  return new EmbedBuilder()
    .setColor(MUSIC_COLOUR)
    .setTitle('Your music account')
    .addFields(
      {
        name: 'Linked as',
        value: truncate(linkedAs(link, profile), 1024),
        inline: true,
      },
      { name: 'Premium', value: premiumText(profile?.product ?? link.product), inline: true },
      { name: 'Linked', value: `<t:${Math.floor(link.linkedAt / 1000)}:R>`, inline: true },
      {
        name: 'The bot may',
        value: truncate(
          scopes.map((scope) => `• ${SCOPE_WORDS[scope] ?? md(scope, 100)}`).join('\n') ||
            'nothing beyond public data',
          1024,
        ),
      },
      // A link that holds fewer permissions than the bot asks for (the service granted fewer).
      ...(missing.length > 0
        ? [
            {
              name: 'Not granted',
              value: truncate(missing.map((words) => `• ${words}`).join('\n'), 1024),
            },
          ]
        : []),
    )
    .setFooter({ text: 'Use /music unlink to remove the link at any time.' });
}
