/**
 * Discord takes suggestions within 3 s of making the interaction, not of delivering it: the time the
 * interaction took to arrive comes off what the handlers get, unless the clocks plainly disagree.
 */
import { describe, expect, it } from 'vitest';
import { AUTOCOMPLETE_BUDGET_MS, autocompleteBudgetMs } from '../../src/bot/router.js';

describe('the time autocomplete handlers get', () => {
  const created = Date.parse('2026-12-02T12:00:00Z');

  it('is the whole budget for an interaction that arrives at once', () => {
    expect(autocompleteBudgetMs(created, created)).toBe(AUTOCOMPLETE_BUDGET_MS);
  });

  it('shrinks by the time the interaction took to arrive', () => {
    expect(autocompleteBudgetMs(created, created + 600)).toBe(AUTOCOMPLETE_BUDGET_MS - 600);
    expect(autocompleteBudgetMs(created, created + 2_000)).toBe(AUTOCOMPLETE_BUDGET_MS - 2_000);
    // Past the budget, nothing: an answer at once may still arrive in time.
    expect(autocompleteBudgetMs(created, created + 2_900)).toBe(0);
  });

  it('ignores a clock behind Discord’s, or one so far ahead that no delivery took that long', () => {
    expect(autocompleteBudgetMs(created, created - 5_000)).toBe(AUTOCOMPLETE_BUDGET_MS);
    expect(autocompleteBudgetMs(created, created + 60_000)).toBe(AUTOCOMPLETE_BUDGET_MS);
  });
});
