/**
 * Drives the playground page like a person: type a slash command, fill its options (picking from
 * the bot's autocomplete where asked), send, and find messages by what they show.
 */
import type { Locator, Page } from 'playwright-core';

export interface CommandInput {
  /** As the page lists it: `weather now`, `music playlist view`. */
  command: string;
  /** Typed values; `{ type, pick }` types and then picks the autocomplete choice containing `pick`. */
  options?: Record<string, string | { type: string; pick: string }>;
}

export async function runCommand(page: Page, input: CommandInput): Promise<void> {
  await page.fill('#input', `/${input.command}`);
  await page.click(`#suggestions [data-command="${input.command}"]`);
  for (const [name, value] of Object.entries(input.options ?? {})) {
    const field = page.locator(`[data-option="${name}"]`);
    if (typeof value === 'string') {
      await field.fill(value);
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

export async function actAs(page: Page, name: string): Promise<void> {
  await page.selectOption('#user', { label: name });
}
