/**
 * Drives the playground page like a person: type a slash command, fill its options (picking from
 * the bot's autocomplete where asked), send, and find messages by what they show.
 */
import type { Locator, Page } from 'playwright-core';

export interface CommandInput {
  /** As the page lists it: `weather now`, `music playlist view`. */
  command: string;
  /**
   * Typed values (for a drop-down, the label: `#lounge`, `Current conditions`); `{ type, pick }`
   * types and then picks the autocomplete choice containing `pick`.
   */
  options?: Record<string, string | { type: string; pick: string }>;
}

export async function runCommand(page: Page, input: CommandInput): Promise<void> {
  await page.fill('#input', `/${input.command}`);
  await page.click(`#suggestions [data-command="${input.command}"]`);
  for (const [name, value] of Object.entries(input.options ?? {})) {
    const field = page.locator(`[data-option="${name}"]`);
    if (typeof value === 'string') {
      if ((await page.locator(`select[data-option="${name}"]`).count()) > 0)
        await field.selectOption({ label: value });
      else await field.fill(value);
      continue;
    }
    await field.fill(value.type);
    await page.locator(`[data-choices-for="${name}"] button`, { hasText: value.pick }).first().click();
  }
  await page.click('#send');
}

/** The newest message that contains `text`. */
export function messageWith(page: Page, text: string | RegExp): Locator {
  return page.locator('#messages li.message', { hasText: text }).last();
}

/** Switches the acting member and waits until the list shows what they see (and nothing of the previous view). */
export async function actAs(page: Page, name: string): Promise<void> {
  await page.selectOption('#user', { label: name });
  await page.locator('#messages[aria-busy="false"]').waitFor();
}

/** Opens a channel of the current server and waits until its messages are shown. */
export async function openChannel(page: Page, name: string): Promise<void> {
  await page.click(`#channels [data-channel="${name}"]`);
  await page.locator('#channel-name', { hasText: `# ${name}` }).waitFor();
  await page.locator('#messages[aria-busy="false"]').waitFor();
}
