import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toChoices, choiceName } from '../../src/bot/render/music-prompts.js';
import {
  clip,
  embedLength,
  fitEmbed,
  fitLines,
  formatDuration,
  formatLength,
  md,
  oneLine,
} from '../../src/bot/render/music-text.js';
import { anyText, expectDiscordAccepts } from '../fixtures/music-render.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('music text helpers', () => {
  it('clip never passes the limit in UTF-16 units and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(anyText(600), fc.integer({ min: 0, max: 300 }), (text, max) => {
        const out = clip(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(LONE_SURROGATE.test(out)).toBe(false);
        if (text.length <= max) expect(out).toBe(text);
        else if (max > 0) expect(out.endsWith('…')).toBe(true);
      }),
    );
    expect(clip('😀😀😀', 4)).toBe('😀…');
  });

  it('md keeps names on one line, escapes markdown and mentions, and never returns nothing', () => {
    expect(md('**bold** <@123> [x](y)\nnext', 100)).toBe('\\*\\*bold\\*\\* \\<@123\\> \\[x\\](y) next');
    expect(md('   ', 10)).toBe('*(untitled)*');
    fc.assert(
      fc.property(anyText(), fc.integer({ min: 1, max: 120 }), (text, max) => {
        const out = md(text, max);
        expect(out.length).toBeGreaterThan(0);
        expect(out.length).toBeLessThanOrEqual(2 * max + 14);
        expect(out).not.toContain('\n');
      }),
    );
  });

  it('fitLines fits the budget and counts every hidden line in its tail', () => {
    fc.assert(
      fc.property(
        fc.array(anyText(300).map(oneLine), { maxLength: 60 }),
        fc.integer({ min: 0, max: 4096 }),
        fc.nat(5_000),
        (lines, max, alsoHidden) => {
          const out = fitLines(lines, max, (hidden) => `…and ${hidden} more`, alsoHidden);
          expect(out.length).toBeLessThanOrEqual(max);
          const tail = /…and (\d+) more$/.exec(out);
          if (tail) {
            const shown = out.split('\n').length - 1;
            expect(Number(tail[1])).toBe(lines.length - shown + alsoHidden);
          }
        },
      ),
    );
    expect(fitLines(['a', 'b', 'c'], 100, (n) => `+${n}`)).toBe('a\nb\nc');
    expect(fitLines(['aaaa', 'bbbb', 'cccc'], 12, (n) => `+${n}`)).toBe('aaaa\nbbbb\n+1');
  });

  it('fitEmbed keeps every part and the total within Discord’s limits, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.record({
          title: anyText(600),
          description: fc.string({ maxLength: 9_000 }),
          footer: anyText(3_000),
          author: anyText(600),
          url: fc.oneof(fc.webUrl(), anyText(50)),
          fields: fc.array(fc.record({ name: anyText(400), value: fc.string({ maxLength: 2_000 }) }), {
            maxLength: 40,
          }),
        }),
        (parts) => {
          const embed = fitEmbed(parts);
          expect(embedLength(embed)).toBeLessThanOrEqual(6000);
          expectDiscordAccepts({ embeds: [embed], components: [] });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('formats durations and lengths', () => {
    expect(formatDuration(187_000)).toBe('3:07');
    expect(formatDuration(3_723_000)).toBe('1:02:03');
    expect(formatDuration(-5)).toBe('0:00');
    expect(formatLength(45_000)).toBe('45 s');
    expect(formatLength(42 * 60_000)).toBe('42 min');
    expect(formatLength(72 * 60_000)).toBe('1 h 12 min');
  });

  it('makes autocomplete choices Discord accepts: 25 at most, names and values of 1 to 100', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: anyText(300), value: fc.string({ maxLength: 150 }) })),
        (items) => {
          const choices = toChoices(items);
          expect(choices.length).toBeLessThanOrEqual(25);
          expect(new Set(choices.map((c) => c.value)).size).toBe(choices.length);
          for (const choice of choices) {
            expect(choice.name.length).toBeGreaterThanOrEqual(1);
            expect(choice.name.length).toBeLessThanOrEqual(100);
            expect(choice.value.length).toBeGreaterThanOrEqual(1);
            expect(choice.value.length).toBeLessThanOrEqual(100);
          }
        },
      ),
    );
    expect(choiceName('x'.repeat(300), 'detail')).toBe(`${'x'.repeat(69)}… — detail`);
    expect(choiceName('x'.repeat(300)).length).toBe(100);
    expect(choiceName('', null)).toBe('Untitled');
  });
});
