import { tmpdir } from 'node:os';
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoWorld, type DemoWorld } from '../../scripts/lib/demo-world.js';
import { launchChromium } from '../helpers/browser.js';
import { actAs, messageWith, openChannel, runCommand } from '../helpers/playground.js';
import { haveChromium } from '../helpers/services.js';

/** `HH:MM` on a 24-hour clock in `zone` at `at`: a schedule's time of day. */
function clockTimeIn(zone: string, at: number): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
}

const chromiumReady = haveChromium();

describe.runIf(chromiumReady)('the playground page, a Discord client for the offline demo', () => {
  let world: DemoWorld;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    world = await startDemoWorld({ fixedPorts: false, playground: true });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    context.on('request', (request) => requested.push(request.url()));
    page = await context.newPage();
    await page.goto(world.playground!.url);
    await page.locator('#channel-name', { hasText: '# general' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('runs /weather now with a Springfield picked from the bot’s autocomplete and shows the embed', async () => {
    await runCommand(page, {
      command: 'weather now',
      options: { place: { type: 'Springfield', pick: 'Springfield, Missouri' } },
    });
    const reply = messageWith(page, 'Springfield, Missouri, US');
    await reply.locator('.embed-title').waitFor();
    expect(await reply.locator('.used').textContent()).toContain('Alice used /weather');
    expect(await reply.locator('.embed-field-name').allTextContents()).toContain('Temperature');
  }, 20_000);

  it('shows what Discord refuses before the bot sees it, such as a missing required option', async () => {
    await runCommand(page, { command: 'weather accumulated' });
    await page.locator('#error', { hasText: 'start' }).waitFor();
    await page.fill('#input', '');
  }, 20_000);

  it('links the music account through its start page and the consent page, and the ephemeral prompt changes', async () => {
    await runCommand(page, { command: 'music link' });
    const prompt = messageWith(page, 'Link your music account');
    expect(await prompt.locator('.only-you').textContent()).toContain('Only you can see this');
    const [consent] = await Promise.all([
      context.waitForEvent('page'),
      prompt.locator('a.btn', { hasText: 'Link my music account' }).click(),
    ]);
    await consent.waitForURL(/\/link\/start\?/);
    expect(await consent.textContent('main')).toContain(
      'the Discord account @alice (Alice) use your music account',
    );
    await consent.click('button:has-text("Continue")');
    await consent.waitForURL(/\/accounts\/authorize/);
    await consent.selectOption('select[name="user_id"]', world.offline.music.fixtures!.users.premium);
    await consent.click('button[value="approve"]');
    await consent.waitForURL(/\/callback\?/);
    expect(await consent.textContent('h1')).toBe('Music account linked');
    await consent.close();
    await messageWith(page, 'Music account linked').locator('.only-you').waitFor();
  }, 30_000);

  it('opens a playlist and clicks through to its last page', async () => {
    await runCommand(page, {
      command: 'music playlist view',
      options: { playlist: { type: 'Every', pick: 'Everything, Forever' } },
    });
    const playlist = messageWith(page, 'Everything, Forever');
    await playlist.locator('.embed-footer', { hasText: /^Page 1 of/ }).waitFor();
    const pages = /Page 1 of ([\d,]+)/.exec(
      (await playlist.locator('.embed-footer').textContent()) ?? '',
    )?.[1];
    await playlist.locator('button', { hasText: 'Last' }).click();
    await playlist.locator('.embed-footer', { hasText: `Page ${pages} of ${pages}` }).waitFor();
    expect(await playlist.locator('button', { hasText: 'Last' }).isDisabled()).toBe(true);
  }, 20_000);

  it('pauses from the player panel; the second user pressing the same Pause is refused', async () => {
    await runCommand(page, { command: 'music player' });
    const panel = messageWith(page, 'Panel of @Alice');
    await panel.locator('button', { hasText: 'Pause' }).click();
    await panel.locator('.embed-description', { hasText: /Paused/ }).waitFor();

    await actAs(page, 'Bob');
    const bobsView = messageWith(page, 'Panel of @Alice');
    await bobsView.locator('button', { hasText: 'Pause' }).click();
    // The panel itself says "only they can use its buttons": wait for the refusal's own words.
    const refusal = messageWith(page, 'Run the command yourself');
    await refusal.waitFor();
    expect(await refusal.locator('.only-you').count()).toBe(1);

    // Bob's refusal is his alone: Alice does not see it.
    await actAs(page, 'Alice');
    expect(await messageWith(page, 'Panel of @Alice').count()).toBe(1);
    expect(await page.locator('#messages li.message', { hasText: 'Run the command yourself' }).count()).toBe(
      0,
    );
  }, 30_000);

  it('shows a chart attachment inline, and takes a screenshot (UPDATE_SCREENSHOT=1 refreshes the README one)', async () => {
    await runCommand(page, {
      command: 'weather hourly',
      options: { place: { type: 'Springfield', pick: 'Springfield, Illinois' }, hours: '24' },
    });
    const chart = messageWith(page, 'Springfield, Illinois')
      .locator('img.embed-image, img.attachment')
      .first();
    await chart.waitFor();
    await expect
      .poll(() => chart.evaluate((img) => (img as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(100);
    await mkdir('docs', { recursive: true });
    const shot = await page.screenshot({
      path:
        process.env['UPDATE_SCREENSHOT'] === '1'
          ? 'docs/playground.png'
          : path.join(tmpdir(), 'playground.png'),
    });
    expect(shot.subarray(1, 4).toString('latin1')).toBe('PNG');
  }, 20_000);

  it('moves the emulators’ clocks with the time control', async () => {
    const before = world.offline.weather.now();
    await page.click('#time button[data-advance="86400000"]');
    await expect.poll(() => page.textContent('#clock')).toContain('+24 h');
    expect(world.offline.weather.now() - before).toBeGreaterThan(86_000_000);
    expect(world.offline.clock.now() - Date.now()).toBeGreaterThan(86_000_000);
    await page.click('#time button[data-reset]');
    await expect.poll(() => world.offline.clock.now() - Date.now()).toBeLessThan(1_000);
  }, 20_000);

  it('posts a schedule for a time ahead of the emulated clock once the time control passes it', async () => {
    // A time of day some 50 minutes ahead in Chicago: +1 h passes it, well inside the 30-minute grace.
    const time = clockTimeIn('America/Chicago', world.offline.clock.now() + 50 * 60_000);
    await runCommand(page, {
      command: 'weather schedule add',
      options: {
        place: { type: 'Springfield', pick: 'Springfield, Illinois' },
        time,
        timezone: { type: 'Chicago', pick: 'America/Chicago' },
        channel: '#lounge',
        kind: 'Current conditions',
      },
    });
    const saved = messageWith(page, 'Scheduled weather post saved');
    await saved.locator('.only-you').waitFor();
    expect(await saved.textContent()).toContain(time);

    await openChannel(page, 'lounge');
    // A post, not a reply: no "used /command" line above it.
    const post = page.locator('#messages li.message:not(:has(.used))', { hasText: 'Springfield, Illinois' });
    expect(await post.count()).toBe(0);
    await page.click('#time button[data-advance="3600000"]');
    await post.locator('.embed-title').waitFor({ timeout: 15_000 });
    expect(await post.locator('.embed-field-name').allTextContents()).toContain('Temperature');
    expect(await post.locator('.only-you').count()).toBe(0);
  }, 30_000);

  it('refreshes the linked music token after the clock moves past its expiry, without linking again', async () => {
    const refreshes = world.offline.music.tokenRequests('refresh_token');
    await openChannel(page, 'general');
    // The schedule test left the clock at +1 h; one more hour is well past the token's hour.
    await page.click('#time button[data-advance="3600000"]');
    await expect.poll(() => page.textContent('#clock')).toContain('+2 h');
    const panels = page.locator('#messages li.message', { hasText: 'Panel of @Alice' });
    const before = await panels.count();
    const prompts = page.locator('#messages li.message', { hasText: 'Link your music account' });
    const promptsBefore = await prompts.count();
    await runCommand(page, { command: 'music player' });
    await expect.poll(() => panels.count()).toBe(before + 1);
    await panels.last().locator('.embed-description').waitFor();
    expect(world.offline.music.tokenRequests('refresh_token')).toBeGreaterThan(refreshes);
    expect(await prompts.count()).toBe(promptsBefore);
    await page.click('#time button[data-reset]');
    await expect.poll(() => world.offline.clock.now() - Date.now()).toBeLessThan(1_000);
  }, 30_000);

  it('says that a jump posts what falls due within it, and which places the offline weather service knows', async () => {
    const clockHint = (await page.textContent('#time .hint'))?.replace(/\s+/g, ' ');
    expect(clockHint).toMatch(/post due within the jump is made when the clock moves/);
    const hints = page.locator('#hints');
    expect(await hints.isVisible()).toBe(true);
    const text = (await hints.textContent()) ?? '';
    expect(text).toMatch(/not found/);
    for (const name of ['Springfield', 'Paris', 'London', 'Tokyo']) expect(text).toContain(name);
  });

  it('posts a schedule due some 20 hours ahead once, when +1 day jumps past it', async () => {
    await openChannel(page, 'general');
    // 20 hours ahead: the jump of a day leaves the post some 4 hours late, as the demo's bot allows.
    const time = clockTimeIn('Europe/Paris', world.offline.clock.now() + 20 * 3_600_000);
    await runCommand(page, {
      command: 'weather schedule add',
      options: {
        place: { type: 'Paris', pick: 'France' },
        time,
        timezone: { type: 'Paris', pick: 'Europe/Paris' },
        channel: '#lounge',
        kind: 'Current conditions',
      },
    });
    // The earlier schedule's answer is there too: wait for this one's.
    await page
      .locator('#messages li.message', { hasText: 'Scheduled weather post saved' })
      .filter({ hasText: time })
      .locator('.only-you')
      .waitFor();

    await openChannel(page, 'lounge');
    const posts = page.locator('#messages li.message:not(:has(.used))', { hasText: 'Paris' });
    expect(await posts.count()).toBe(0);
    await page.click('#time button[data-advance="86400000"]');
    await posts.first().locator('.embed-title').waitFor({ timeout: 15_000 });
    expect(await posts.first().locator('.embed-field-name').allTextContents()).toContain('Temperature');
    // One slot passed, one post: the scheduler's next look, an hour on, makes no other.
    await page.click('#time button[data-advance="3600000"]');
    await expect.poll(() => page.textContent('#clock')).toContain('+25 h');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await posts.count()).toBe(1);
    await page.click('#time button[data-reset]');
    await expect.poll(() => world.offline.clock.now() - Date.now()).toBeLessThan(1_000);
  }, 30_000);

  it('fetched nothing from beyond 127.0.0.1', () => {
    expect(requested.length).toBeGreaterThan(5);
    expect(requested.filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
  });
});
