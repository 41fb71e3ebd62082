import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkButtonUrl, startBotWorld, type BotWorld } from '../helpers/bot.js';
import { launchChromium } from '../helpers/browser.js';
import { haveChromium } from '../helpers/services.js';

const chromiumReady = haveChromium();

describe.runIf(chromiumReady)('linking a music account in a real browser', () => {
  let world: BotWorld;
  let browser: Browser;
  beforeAll(async () => {
    world = await startBotWorld({ music: true });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('follows the button through its page and the consent page back to the bot, and Discord shows the link', async () => {
    const handle = world.slash('music', { subcommand: 'link' });
    const prompt = await handle.reply();
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));

    await page.goto(linkButtonUrl(prompt));
    expect(await page.textContent('h1')).toBe('Link your music account?');
    expect(await page.textContent('main')).toContain('the Discord account @alice use your music account');
    await page.click('button:has-text("Continue")');
    await expect.poll(() => page.url()).toContain(`${world.music!.authUrl}/authorize`);
    await page.selectOption('select[name="user_id"]', world.music!.fixtures!.users.premium);
    await page.click('button[value="approve"]');
    await page.waitForURL(/\/callback\?/);
    expect(await page.textContent('h1')).toBe('Music account linked');
    expect(await page.textContent('main')).toContain('You can close this tab and go back to Discord.');

    const edited = await handle.waitForEdit();
    expect(edited.embeds[0]?.title).toBe('Music account linked');
    expect(requested.every((url) => new URL(url).hostname === '127.0.0.1')).toBe(true);

    // A command that needs the member's own token now works.
    const status = await world.slash('music', { subcommand: 'status' }).reply();
    expect(status.embeds[0]?.fields?.find((f) => f.name === 'Linked as')?.value).toContain(
      world.music!.fixtures!.users.premium,
    );
  }, 30_000);

  it('ends a denied consent on its own page, and nothing is linked', async () => {
    const prompt = await world.slash('music', { subcommand: 'link', userId: world.bob.id }).reply();
    const page = await browser.newPage();
    await page.goto(linkButtonUrl(prompt));
    await page.click('button:has-text("Continue")');
    await page.click('button[value="deny"]');
    await page.waitForURL(/\/callback\?/);
    expect(await page.textContent('h1')).toBe('Access was not granted');
    const status = await world.slash('music', { subcommand: 'status', userId: world.bob.id }).reply();
    expect(`${status.content ?? ''}\n${status.embeds[0]?.description ?? ''}`).toContain('/music link');
  }, 30_000);

  it("shows an attacker's link, opened in a victim's browser, with the attacker's name before anything happens", async () => {
    const attacker = world.discord.createUser({ username: 'mallory' });
    const prompt = await world.slash('music', { subcommand: 'link', userId: attacker.id }).reply();
    const victim = await browser.newContext();
    const page = await victim.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(linkButtonUrl(prompt));
    expect(await page.textContent('main')).toContain(
      'You are about to let the Discord account @mallory use your music account',
    );
    expect(await page.textContent('main')).toContain('if someone sent you this link, close this page.');
    // Nothing has reached the music service: the victim can still just close the page.
    expect(page.url()).toBe(linkButtonUrl(prompt));
    expect(requested.some((url) => url.startsWith(world.music!.authUrl))).toBe(false);

    // The Continue button's address, passed on by itself, leads nowhere in this browser.
    const action = await page.getAttribute('form', 'action');
    await victim.clearCookies();
    await page.click('button:has-text("Continue")');
    expect(await page.textContent('h1')).toBe('Please finish in the same browser');
    // Relative to the start page, so it works under PUBLIC_URL's path too.
    expect(new URL(action!, linkButtonUrl(prompt)).pathname).toBe('/link/continue');
    expect(requested.some((url) => url.startsWith(world.music!.authUrl))).toBe(false);
    await victim.close();
  }, 30_000);
});
