/**
 * Walks the account-linking redirect loop over real HTTP, as a browser would (for tests and the demo):
 * the start link, the music emulator's consent page, the callback. Cookies are carried by hand.
 */
import { request } from 'undici';
import type { MusicEmulator } from './index.js';

export interface BrowserVisit {
  status: number;
  location: string | undefined;
  cookie: string | undefined;
  body: string;
}

export async function visit(url: string, cookie?: string): Promise<BrowserVisit> {
  const response = await request(url, { headers: cookie ? { cookie } : {} });
  const setCookie = response.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  return {
    status: response.statusCode,
    location: response.headers.location as string | undefined,
    cookie: first?.split(';')[0],
    body: await response.body.text(),
  };
}

/** The start link → consent (approved as `musicUserId`) → callback; returns the callback page. */
export async function completeLink(
  music: MusicEmulator,
  startUrl: string,
  musicUserId: string,
  options: { deny?: boolean; cookie?: string } = {},
): Promise<BrowserVisit & { callbackUrl: string; browserCookie: string | undefined }> {
  const start = await visit(startUrl);
  if (start.status !== 302 || !start.location)
    throw new Error(`start link answered ${start.status}: ${start.body}`);
  const back = options.deny
    ? await music.deny(start.location, musicUserId)
    : await music.approve(start.location, musicUserId);
  const browserCookie = options.cookie ?? start.cookie;
  const page = await visit(back.toString(), browserCookie);
  return { ...page, callbackUrl: back.toString(), browserCookie };
}
