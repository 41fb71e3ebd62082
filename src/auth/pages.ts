/** The callback server's pages: plain, readable HTML, no scripts, nothing loaded from elsewhere. */
import { notGrantedText } from './scopes.js';
import type { LinkOutcome } from './states.js';

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);

export interface Page {
  status: number;
  title: string;
  /** Plain sentences; escaped. */
  lines: string[];
  tone: 'ok' | 'problem';
  /** A button that posts to `action` (a path on this server); no fields, nothing else. */
  form?: { action: string; label: string };
}

export function renderPage(page: Page): string {
  const colour = page.tone === 'ok' ? '#1f7a3a' : '#a33a1f';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.title)}</title>
<style>
  body { font: 17px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 12vh auto; padding: 0 1.25rem; color: #1d1d1f; background: #fafafa; }
  h1 { font-size: 1.45rem; color: ${colour}; }
  button { font: inherit; padding: 0.5rem 1.25rem; border: 0; border-radius: 6px; color: #fff; background: #1f7a3a; cursor: pointer; }
  @media (prefers-color-scheme: dark) { body { color: #e8e8e8; background: #1e1f22; } }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(page.title)}</h1>
${page.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
${page.form ? `<form method="post" action="${escapeHtml(page.form.action)}"><button type="submit">${escapeHtml(page.form.label)}</button></form>` : ''}
</main>
</body>
</html>
`;
}

const BACK = 'Go back to Discord and run /music link again to get a fresh link.';

export const pages = {
  /**
   * What the start link shows before anything happens: whoever opens it (maybe not the member who
   * asked, if the link was passed on) learns which Discord account would get their music account.
   * `account` is absent for links started before the page named it.
   */
  confirmLink: (
    account: { username: string; displayName?: string | undefined } | undefined,
    action: string,
  ): Page => {
    const who = !account
      ? 'a Discord account (the one that asked the bot for this link)'
      : account.displayName && account.displayName !== account.username
        ? `the Discord account @${account.username} (${account.displayName})`
        : `the Discord account @${account.username}`;
    return {
      status: 200,
      tone: 'ok',
      title: 'Link your music account?',
      lines: [
        `You are about to let ${who} use your music account: see your devices, pause and skip what is playing, ` +
          'save albums to your library or remove them, and read and change your playlists.',
        'Continue only if you started this yourself from Discord; if someone sent you this link, close this page.',
      ],
      form: { action, label: 'Continue' },
    };
  },
  /** `missing`: what the service did not grant of what the bot asked for, in words. */
  linked: (name: string, missing: readonly string[] = []): Page => ({
    status: 200,
    tone: 'ok',
    title: 'Music account linked',
    lines: [
      `Linked as ${name}. You can close this tab and go back to Discord.`,
      ...(missing.length === 0 ? [] : [notGrantedText(missing)]),
    ],
  }),
  /** `access_denied`, which the service sends for consent refused and for consent that failed alike. */
  denied: (): Page => ({
    status: 200,
    tone: 'problem',
    title: 'Access was not granted',
    lines: [
      'Access to your music account was not granted: it was cancelled on the music service’s page, or did not complete there. Nothing was linked and nothing was stored.',
      'To try again: ' + BACK,
    ],
  }),
  linkFailed: (): Page => ({
    status: 502,
    tone: 'problem',
    title: 'Linking failed',
    lines: ['The music service could not complete the link, so nothing was linked.', BACK],
  }),
  expired: (): Page => ({
    status: 410,
    tone: 'problem',
    title: 'This link has expired',
    lines: ['Links to connect your music account work for 10 minutes.', BACK],
  }),
  withdrawn: (): Page => ({
    status: 410,
    tone: 'problem',
    title: 'This link was withdrawn',
    lines: ['/music unlink was used in Discord after this link was made, so it no longer works.', BACK],
  }),
  /**
   * A link used before, by what became of it then; `outcome` is absent while that use is still
   * being finished, and for links used before the bot kept what became of them.
   */
  replayed: (outcome?: LinkOutcome): Page => {
    if (outcome === 'expired') return pages.expired();
    if (outcome === 'withdrawn') return pages.withdrawn();
    const page = { status: 409, tone: 'problem', title: 'This link was already used' } as const;
    switch (outcome) {
      case 'linked':
        return {
          ...page,
          lines: [
            'Each link works once, and this one linked a music account (this page may have been reloaded), so that is done: /music status in Discord shows it.',
          ],
        };
      case 'denied':
        return {
          ...page,
          lines: [
            'Each link works once. When this one was used, access was not granted, so nothing was linked.',
            'To try again: ' + BACK,
          ],
        };
      case 'failed':
        return {
          ...page,
          lines: [
            'Each link works once. Linking with this one did not complete, so nothing was linked.',
            'To try again: ' + BACK,
          ],
        };
      case undefined:
        return {
          ...page,
          lines: [
            'Each link works once, and this one has been used. /music status in Discord shows whether your music account is linked.',
            'If it is not: ' + BACK,
          ],
        };
    }
  },
  unknown: (): Page => ({
    status: 400,
    tone: 'problem',
    title: 'This link is not valid',
    lines: ['The bot does not know this link: it may be incomplete or very old.', BACK],
  }),
  otherUser: (): Page => ({
    status: 403,
    tone: 'problem',
    title: 'This link belongs to someone else',
    lines: [
      'It was made for another Discord account than the one that started linking in this browser, so nothing was linked.',
      'Each member must use the link the bot showed them. ' + BACK,
    ],
  }),
  otherBrowser: (): Page => ({
    status: 403,
    tone: 'problem',
    title: 'Please finish in the same browser',
    lines: [
      'Linking has to end in the browser where it started (the button in Discord), with cookies allowed for this site. Nothing was linked.',
      BACK,
    ],
  }),
  notFromStartPage: (): Page => ({
    status: 403,
    tone: 'problem',
    title: 'Please use the Continue button on the link page',
    lines: [
      'This step only works from the page the bot’s link opens, and this request came from somewhere else. Nothing was linked.',
      BACK,
    ],
  }),
  exchangeFailed: (): Page => ({
    status: 502,
    tone: 'problem',
    title: 'The music service did not accept this link',
    lines: ['It refused to hand over access for this sign-in, so nothing was linked.', BACK],
  }),
  unusableAnswer: (): Page => ({
    status: 502,
    tone: 'problem',
    title: 'The bot could not use the music service’s answer',
    lines: [
      'The music service answered, but not in a way the bot can use, so nothing was linked. Trying again will probably not help.',
      'Please tell the bot’s owner; they will find the details in the bot’s log.',
    ],
  }),
  notRegistered: (): Page => ({
    status: 403,
    tone: 'problem',
    title: 'This music account cannot use the bot yet',
    lines: [
      'The bot’s music app only lets in the accounts its owner has added, and yours is not one of them yet, so nothing was linked.',
      'Ask the bot’s owner to add your music account to the app, then: ' + BACK,
    ],
  }),
  appMisconfigured: (): Page => ({
    status: 502,
    tone: 'problem',
    title: 'The bot’s music app is not set up right',
    lines: [
      'The music service refused the bot’s own part of linking, which only the bot’s owner can fix, so nothing was linked.',
      'Please tell them; linking again will not help until they have. The bot’s log says what to change.',
    ],
  }),
  quotaUsedUp: (): Page => ({
    status: 503,
    tone: 'problem',
    title: 'The bot’s music app has used up its requests for now',
    lines: [
      'The music service counts the requests of the bot’s app, and it has made all it may for now. That is not something you did; nothing was linked.',
      'Please try again later: ' + BACK + ' The bot’s owner can see the details in its log.',
    ],
  }),
  serviceDown: (): Page => ({
    status: 503,
    tone: 'problem',
    title: 'The music service is not answering',
    lines: ['Nothing was linked. Please try again in a few minutes: ' + BACK],
  }),
  /** A request with a method the route does not take; `linkStep` for the routes of linking. */
  methodNotAllowed: (linkStep: boolean): Page => ({
    status: 405,
    tone: 'problem',
    title: 'This address cannot be opened this way',
    lines: linkStep
      ? [
          'It is a step of linking a music account, and only works when reached through the link the bot gave you in Discord, so nothing happened here and nothing was linked.',
          BACK,
        ]
      : ['This server only links music accounts for the Discord bot.'],
  }),
  badRequest: (what: string): Page => ({
    status: 400,
    tone: 'problem',
    title: 'Something is wrong with this address',
    lines: [what, BACK],
  }),
  notFound: (): Page => ({
    status: 404,
    tone: 'problem',
    title: 'Nothing here',
    lines: ['This server only links music accounts for the Discord bot.'],
  }),
  internal: (reference: string): Page => ({
    status: 500,
    tone: 'problem',
    title: 'Something went wrong on our side',
    lines: [`Nothing was linked. It has been logged (reference ${reference}). ${BACK}`],
  }),
};
