import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  byTypedName,
  escapeMarkdown,
  foldName,
  formatCount,
  joinList,
  nameContains,
  plural,
  quoteText,
  truncate,
  withArticle,
} from '../../src/domain/text.js';

const graphemesOf = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

describe('shortening text for Discord', () => {
  it('cuts between the characters a member sees: flags, families and accents stay whole', () => {
    expect(truncate(`${'a'.repeat(253)}🇩🇪x`, 256)).toBe(`${'a'.repeat(253)}…`);
    expect(truncate(`${'a'.repeat(94)}👨‍👩‍👧 family`, 100)).toBe(`${'a'.repeat(94)}…`);
    // "é" written as e + a combining acute accent: cut before the letter, not between it and its accent.
    expect(truncate('caf\u0065\u0301 au lait', 5)).toBe('caf…');
    expect(truncate('short', 5)).toBe('short');
    expect(truncate('anything', 0)).toBe('');
  });

  it('never passes the limit, and what it keeps is whole graphemes of the text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.integer({ min: 0, max: 120 }),
        (text, max) => {
          const out = truncate(text, max);
          expect(out.length).toBeLessThanOrEqual(max);
          if (text.length <= max) expect(out).toBe(text);
          else if (max === 0) expect(out).toBe('');
          else {
            const kept = out.slice(0, -1);
            expect(out.endsWith('…')).toBe(true);
            const keptParts = graphemesOf(kept);
            expect(graphemesOf(text).slice(0, keptParts.length)).toEqual(keptParts);
          }
        },
      ),
    );
  });
});

describe('quoting names and input inside a sentence', () => {
  it('shows markdown, masked links and mentions as typed', () => {
    expect(escapeMarkdown('[Log in](https://evil.example) **now** <@&123> ||x|| `c` _i_ ~s~ \\')).toBe(
      '\\[Log in\\](https\\://evil.example) \\*\\*now\\*\\* \\<@&123\\> \\|\\|x\\|\\| \\`c\\` \\_i\\_ \\~s\\~ \\\\',
    );
  });

  it('keeps a name that begins a line from becoming a heading, subtext or a list, and leaves such signs inside it alone', () => {
    expect(escapeMarkdown('# FREE NITRO')).toBe('\\# FREE NITRO');
    expect(escapeMarkdown('## x\n-# tiny\n- item\n  12. twelve')).toBe(
      '\\## x\n\\-# tiny\n\\- item\n  12\\. twelve',
    );
    expect(quoteText('1. Symphonie')).toBe('1\\. Symphonie');
    expect(quoteText('Vol. 2 - Side #1, 3. Satz')).toBe('Vol. 2 - Side #1, 3. Satz');
    expect(quoteText('-dash-')).toBe('-dash-');
  });

  it('leaves out the characters that would turn the rest of the line around, and keeps right-to-left names', () => {
    expect(quoteText('abc\u202Eevil\u202C ok')).toBe('abcevil ok');
    expect(quoteText('\u2067isolate\u2069')).toBe('isolate');
    expect(quoteText('שלום \u200Fעולם')).toBe('שלום \u200Fעולם');
  });

  it('keeps a quote on one line and short before escaping it', () => {
    expect(quoteText('  Road\ntrip  mix ')).toBe('Road trip mix');
    expect(quoteText(`${'*'.repeat(70)}`, 10)).toBe(`${'\\*'.repeat(9)}…`);
  });
});

describe('counts and lists in a sentence', () => {
  it('joins a list with "and" (German "und"), and counts what is past `max`', () => {
    expect(joinList([])).toBe('');
    expect(joinList(['A'])).toBe('A');
    expect(joinList(['A', 'B'])).toBe('A and B');
    expect(joinList(['A', 'B', 'C'])).toBe('A, B, and C');
    expect(joinList(['A', 'B', 'C'], { locale: 'de' })).toBe('A, B und C');
    expect(joinList(['A', 'B', 'C', 'D', 'E'], { max: 2 })).toBe('A, B, and 3 more');
    expect(joinList(['A', 'B', 'C'], { max: 3 })).toBe('A, B, and C');
    expect(
      joinList(
        Array.from({ length: 1_234 }, () => 'x'),
        { max: 1 },
      ),
    ).toBe('x and 1,233 more');
  });

  it('writes counts with separators, one thing in the singular, and "an" before a vowel', () => {
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(plural(1, 'item')).toBe('1 item');
    expect(plural(1_000, 'item')).toBe('1,000 items');
    expect(withArticle('album')).toBe('an album');
    expect(withArticle('track')).toBe('a track');
  });
});

describe('names as members type them', () => {
  it('folds accents, curly apostrophes, emoji and spacing away', () => {
    expect(foldName('Café Vibes')).toBe('cafe vibes');
    // The accent as a separate mark, as some keyboards write it.
    expect(foldName('Cafe\u0301  Vibes')).toBe('cafe vibes');
    expect(foldName('Alice’s mix')).toBe("alice's mix");
    expect(foldName('Alice‘s ʼmix')).toBe("alice's 'mix");
    expect(foldName('🚗 Road Songs')).toBe('road songs');
    expect(foldName('👨‍👩‍👧 Family 👍🏽 ★')).toBe('family');
    expect(foldName('🇩🇪 Deutsch')).toBe('deutsch');
    expect(foldName('ﬁne  tunes ')).toBe('fine tunes');
    expect(foldName('Rock & Roll')).toBe('rock & roll');
  });

  it('finds a name typed without its accents, curly apostrophe or emoji, the exact name first', () => {
    const names = ['Café Vibes', 'Alice’s mix', '🚗 Road Songs'];
    const find = (typed: string, among = names) => byTypedName(among, typed, (name) => name);
    expect(find('cafe vibes')).toEqual(['Café Vibes']);
    expect(find("  Alice's MIX ")).toEqual(['Alice’s mix']);
    expect(find('road songs')).toEqual(['🚗 Road Songs']);
    expect(find('cafe')).toEqual([]);
    // Two names that fold alike: the one named as typed, else both.
    const twins = ['Alice’s mix', "Alice's mix"];
    expect(find("alice's mix", twins)).toEqual(["Alice's mix"]);
    expect(find('alice’s mix', twins)).toEqual(['Alice’s mix']);
    expect(find('alices mix', ['Alice’s mix', 'Alices mix'])).toEqual(['Alices mix']);
    expect(find('🚗', ['🚗', '🚌'])).toEqual(['🚗']);
    expect(find('🚕', ['🚗', '🚌'])).toEqual([]);
  });

  it('suggests names that hold what was typed, folded alike', () => {
    expect(nameContains('Café Vibes', 'cafe')).toBe(true);
    expect(nameContains('Alice’s mix', "alice's")).toBe(true);
    expect(nameContains('🚗 Road Songs', 'road')).toBe(true);
    expect(nameContains('🚗 Road Songs', '🚗')).toBe(true);
    expect(nameContains('Road Songs', '🚗')).toBe(false);
    expect(nameContains('Road Songs', '')).toBe(true);
    expect(nameContains('Road Songs', 'cafe')).toBe(false);
  });
});
