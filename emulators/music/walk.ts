/**
 * Walks the account-linking redirect loop over real HTTP, as a browser would (for tests and the demo):
 * the start link's page and its Continue button, the music emulator's consent page, the callback.
 * Cookies are carried by hand.
 */
import { request } from 'undici';
import type { MusicEmulator } from './index.js';

export interface BrowserVisit {
  status: number;
  location: string | undefined;
  cookie: string | undefined;
  body: string;
}

/**
 * A GET (a link followed), or a POST of a form without fields (a button pressed): on a page of the
 * same origin unless `site` says otherwise, as `Sec-Fetch-Site` tells the server.
 */
export async function visit(
  url: string,
  cookie?: string,
  method: 'GET' | 'POST' = 'GET',
  site: 'same-origin' | 'cross-site' = 'same-origin',
): Promise<BrowserVisit> {
  const response = await request(url, {
    method,
    headers: {
      ...(cookie ? { cookie } : {}),
      ...(method === 'POST'
        ? { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': site }
        : {}),
    },
    ...(method === 'POST' ? { body: '' } : {}),
  });
  const setCookie = response.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  return {
    status: response.statusCode,
    location: response.headers.location as string | undefined,
    cookie: first?.split(';')[0],
    body: await response.body.text(),
  };
}

/** Where the page's form posts to (its `action`, resolved against the page's URL), if it has one. */
export function formAction(page: Pick<BrowserVisit, 'body'>, pageUrl: string): string | undefined {
  const action = /<form method="post" action="([^"]*)"/.exec(page.body)?.[1];
  return action === undefined ? undefined : new URL(action.replaceAll('&amp;', '&'), pageUrl).toString();
}

/**
 * The start link opened in a browser, then its Continue button pressed there (with the cookie the
 * page set, or `cookie` instead when given): the Continue answer (a redirect to the consent page
 * when all is well), the start page itself, and the browser's cookies (the start page's, and the
 * one Continue set).
 */
export async function beginLink(
  startUrl: string,
  options: { cookie?: string } = {},
): Promise<BrowserVisit & { page: BrowserVisit; continueUrl: string }> {
  const page = await visit(startUrl);
  const continueUrl = formAction(page, startUrl);
  if (page.status !== 200 || !continueUrl)
    throw new Error(`start link answered ${page.status}: ${page.body}`);
  const cookie = options.cookie ?? page.cookie;
  const continued = await visit(continueUrl, cookie, 'POST');
  const jar = [cookie, continued.cookie].filter((c) => c !== undefined).join('; ');
  return { ...continued, cookie: jar || undefined, page, continueUrl };
}

/** The start link → Continue → consent (approved as `musicUserId`) → callback; returns the callback page. */
export async function completeLink(
  music: MusicEmulator,
  startUrl: string,
  musicUserId: string,
  options: { deny?: boolean; cookie?: string } = {},
): Promise<BrowserVisit & { callbackUrl: string; browserCookie: string | undefined }> {
  const start = await beginLink(startUrl);
  if (start.status !== 303 || !start.location)
    throw new Error(`the start page's Continue answered ${start.status}: ${start.body}`);
  const back = options.deny
    ? await music.deny(start.location, musicUserId)
    : await music.approve(start.location, musicUserId);
  const browserCookie = options.cookie ?? start.cookie;
  const page = await visit(back.toString(), browserCookie);
  return { ...page, callbackUrl: back.toString(), browserCookie };
}
