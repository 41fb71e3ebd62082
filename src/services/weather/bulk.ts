/**
 * Streaming readers for bulk files: text chunks in, records out, never more than one chunk (and
 * one unfinished line or record) in memory. The CSV reader is a small RFC 4180 state machine:
 * quoted fields may hold commas, doubled quotes and line breaks; records end at LF or CRLF; blank
 * lines are skipped. It is lenient about stray quotes inside unquoted fields (kept as text).
 */

/** The bulk files of the spec (§4, "Bulk files"), JSON and CSV. */
export const BULK_FILE_NAMES = [
  'weather_14.json.gz',
  'weather_16.json.gz',
  'weather_zip.eu.json.gz',
  'weather_zip.us.json.gz',
  'weather_zip.uk.json.gz',
  'weather_14.csv.gz',
  'weather_16.csv.gz',
  'weather_zip.eu.csv.gz',
  'weather_zip.us.csv.gz',
  'weather_zip.uk.csv.gz',
] as const;

export type BulkJsonFileName = `${string}.json.gz`;
export type BulkCsvFileName = `${string}.csv.gz`;

/** A line or a record longer than this is a broken file, not something to buffer. */
export const MAX_RECORD_CHARS = 1_000_000;

export class BulkParseError extends Error {
  override readonly name: string = 'BulkParseError';
}

/** Splits text into lines (LF or CRLF), skipping blank ones; yields each chunk's lines as one batch. */
export async function* splitLines(source: AsyncIterable<string>): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of source) {
    const text = rest + chunk;
    const lines: string[] = [];
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const line =
        text.charCodeAt(newline - 1) === 13 ? text.slice(start, newline - 1) : text.slice(start, newline);
      if (line.trim() !== '') lines.push(line);
      start = newline + 1;
    }
    rest = text.slice(start);
    if (rest.length > MAX_RECORD_CHARS)
      throw new BulkParseError(`a line is longer than ${MAX_RECORD_CHARS} characters`);
    if (lines.length > 0) yield lines;
  }
  const last = rest.endsWith('\r') ? rest.slice(0, -1) : rest;
  if (last.trim() !== '') yield [last];
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

const State = {
  /** At the start of a field. */
  FieldStart: 0,
  /** Inside an unquoted field. */
  Plain: 1,
  /** Inside a quoted field. */
  Quoted: 2,
  /** Just after a quote inside a quoted field: a doubled quote, or the field's end. */
  QuoteInQuoted: 3,
} as const;
type State = (typeof State)[keyof typeof State];

/** Parses CSV text into rows of fields; yields each chunk's complete rows as one batch. */
export async function* parseCsv(source: AsyncIterable<string>): AsyncGenerator<string[][]> {
  let row: string[] = [];
  let field = '';
  let state: State = State.FieldStart;
  let skipLf = false;
  let rowChars = 0;

  const endRow = (rows: string[][]) => {
    row.push(field);
    // A blank line is a row of one empty field: skip it.
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
    field = '';
    rowChars = 0;
  };

  for await (const chunk of source) {
    const rows: string[][] = [];
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      const c = chunk.charCodeAt(i);
      if (skipLf) {
        skipLf = false;
        if (c === LF) {
          i++;
          continue;
        }
      }
      switch (state) {
        case State.FieldStart:
          if (c === QUOTE) {
            state = State.Quoted;
            i++;
          } else {
            state = State.Plain;
          }
          break;
        case State.Quoted: {
          const quote = chunk.indexOf('"', i);
          const end = quote === -1 ? n : quote;
          field += chunk.slice(i, end);
          rowChars += end - i;
          i = end;
          if (quote !== -1) {
            state = State.QuoteInQuoted;
            i++;
          }
          break;
        }
        case State.QuoteInQuoted:
          if (c === QUOTE) {
            field += '"';
            state = State.Quoted;
            i++;
          } else {
            // The closing quote: what follows is read as in an unquoted field (normally a delimiter).
            state = State.Plain;
          }
          break;
        case State.Plain: {
          let j = i;
          while (j < n) {
            const d = chunk.charCodeAt(j);
            if (d === COMMA || d === LF || d === CR) break;
            j++;
          }
          field += chunk.slice(i, j);
          rowChars += j - i;
          i = j;
          if (j === n) break;
          const delimiter = chunk.charCodeAt(j);
          i++;
          if (delimiter === COMMA) {
            row.push(field);
            field = '';
          } else {
            endRow(rows);
            skipLf = delimiter === CR;
          }
          state = State.FieldStart;
          break;
        }
      }
      if (rowChars > MAX_RECORD_CHARS)
        throw new BulkParseError(`a record is longer than ${MAX_RECORD_CHARS} characters`);
    }
    if (rows.length > 0) yield rows;
  }
  if (state === State.Quoted) throw new BulkParseError('the file ends inside a quoted field');
  if (state !== State.FieldStart || row.length > 0) {
    const rows: string[][] = [];
    endRow(rows);
    if (rows.length > 0) yield rows;
  }
}
