import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RECORD_CHARS, parseCsv, splitLines } from '../../src/services/weather/bulk.js';

async function* chunks(...parts: string[]): AsyncGenerator<string> {
  for (const part of parts) {
    await Promise.resolve(); // each chunk arrives in its own turn, as from a socket
    yield part;
  }
}

async function collect<T>(source: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of source) out.push(...batch);
  return out;
}

/** Cuts `text` at the given offsets: every way a stream may split it. */
function cut(text: string, offsets: number[]): string[] {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let last = 0;
  for (const point of points) {
    parts.push(text.slice(last, point));
    last = point;
  }
  parts.push(text.slice(last));
  return parts;
}

const toCsv = (rows: string[][]) =>
  rows
    .map((row) => row.map((f) => (/[",\r\n]/.test(f) ? `"${f.replaceAll('"', '""')}"` : f)).join(','))
    .join('\r\n');

describe('splitLines', () => {
  it('splits LF and CRLF lines across chunk boundaries and skips blank lines', async () => {
    const lines = await collect(splitLines(chunks('{"a":1}\r\n{"b"', ':2}\n\n  \n{"c":3}')));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('refuses a line that never ends instead of buffering it', async () => {
    const huge = 'x'.repeat(MAX_RECORD_CHARS + 1);
    await expect(collect(splitLines(chunks(huge)))).rejects.toThrow(/longer than/);
  });
});

describe('parseCsv', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks', async () => {
    const text = 'id,name\r\n1,"Springfield, Upper"\r\n2,"Fort ""Old"" Town"\n3,"two\nlines"\n4,plain\n';
    expect(await collect(parseCsv(chunks(text)))).toEqual([
      ['id', 'name'],
      ['1', 'Springfield, Upper'],
      ['2', 'Fort "Old" Town'],
      ['3', 'two\nlines'],
      ['4', 'plain'],
    ]);
  });

  it('keeps empty fields, including a trailing one, and a last row without a newline', async () => {
    expect(await collect(parseCsv(chunks('a,,c,\n,"",x')))).toEqual([
      ['a', '', 'c', ''],
      ['', '', 'x'],
    ]);
  });

  it('fails on a file that ends inside a quoted field', async () => {
    await expect(collect(parseCsv(chunks('a,"never closed\n')))).rejects.toThrow(/quoted field/);
  });

  it('reads back any table however the stream is cut (CR, LF, quotes and commas included)', async () => {
    const field = fc.string({
      unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r', ' ', 'é', '😀'),
      maxLength: 8,
    });
    const table = fc
      .integer({ min: 2, max: 4 })
      .chain((width) =>
        fc.array(fc.array(field, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 6 }),
      )
      // A row of one empty field is a blank line, which readers skip; tables here have 2+ columns.
      .filter((rows) => rows.every((row) => row.length > 1));
    await fc.assert(
      fc.asyncProperty(table, fc.array(fc.nat(), { maxLength: 10 }), async (rows, offsets) => {
        const parsed = await collect(parseCsv(chunks(...cut(toCsv(rows), offsets))));
        expect(parsed).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  });
});
