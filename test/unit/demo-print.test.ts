/** The demo tour's terminal text: Discord's markup read as a Discord client shows it. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { messageText, readable } from '../../scripts/lib/print.js';

describe('the demo tour’s terminal text', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows timestamps as dates and mentions by name, not as markup', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 30, 10, 0), toFake: ['Date'] });
    const names = { '1576737725355261952': '@Alice', '1576727204660903936': '#general' };
    expect(
      readable(
        'Only <@1576737725355261952> can confirm; next <t:1796043600:F> (<t:1796043600:R>) in <#1576727204660903936>',
        names,
      ),
    ).toBe('Only @Alice can confirm; next Mon, 30 Nov 2026, 13:00 UTC (in 3 hours) in #general');
    expect(readable('<@!42> in <#43>')).toBe('@member in #channel');
    expect(readable('<t:1796032800:R> and <t:1796119200:R>')).toBe('now and tomorrow');
  });

  it('keeps every line of a footer, title and field indented under its message', () => {
    const text = messageText({
      content: 'Hello <@1>',
      embeds: [
        {
          title: 'Berlin',
          fields: [{ name: 'Next', value: '<t:0:t>\nlater' }],
          footer: { text: 'Weather data\n© OpenWeather' },
        },
      ],
      components: [],
      attachments: [],
    });
    expect(text.split('\n')).toEqual([
      '  Hello @member',
      '  ## Berlin',
      '  Next',
      '    Thu, 1 Jan 1970, 00:00 UTC',
      '    later',
      '  -- Weather data',
      '  © OpenWeather',
    ]);
  });
});
