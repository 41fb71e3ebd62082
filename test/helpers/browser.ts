/**
 * Debian's Chromium driven by playwright-core, for tests that need a real browser. Never downloads
 * a browser: it uses /usr/bin/chromium (or CHROMIUM_PATH).
 */
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_PATH } from './services.js';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
}
