import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chunk,
  chunkPositions,
  pageOf,
  pageUrl,
  UnexpectedPagingUrlError,
  type Page,
} from '../../src/services/music/index.js';
import { PagingRegistry } from '../../src/services/music/paging.js';

const ORIGIN = 'https://api.music.test';

/** A list served page by page from memory, counting loads. */
function servedList(total: number) {
  const items = Array.from({ length: total }, (_, i) => i);
  const registry = new PagingRegistry(ORIGIN);
  let loads = 0;
  const pageAt = (offset: number, limit: number): Page<number> => {
    const url = (at: number) => `${ORIGIN}/v1/list?offset=${at}&limit=${limit}`;
    const page: Page<number> = {
      href: url(offset),
      items: items.slice(offset, offset + limit),
      limit,
      offset,
      total,
      next: offset + limit < total ? url(offset + limit) : null,
      previous: offset > 0 ? url(Math.max(0, offset - limit)) : null,
    };
    return registry.register(page, (next) => {
      loads++;
      const params = new URL(next).searchParams;
      return Promise.resolve(pageAt(Number(params.get('offset')), Number(params.get('limit'))));
    });
  };
  return { registry, items, pageAt, loads: () => loads };
}

describe('chunking', () => {
  it('splits into chunks of at most the size that concatenate back to the input', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.integer({ min: 1, max: 120 }), (items, size) => {
        const chunks = chunk(items, size);
        expect(chunks.flat()).toEqual(items);
        expect(chunks.length).toBe(Math.ceil(items.length / size));
        expect(chunks.every((part) => part.length >= 1 && part.length <= size)).toBe(true);
      }),
    );
  });

  it('inserting chunk by chunk at the advancing positions gives the same order as one insertion', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { maxLength: 40 }),
        fc.array(fc.integer(), { maxLength: 400 }),
        fc.nat(),
        fc.integer({ min: 1, max: 100 }),
        fc.boolean(),
        (existing, added, rawPosition, size, append) => {
          const position = append ? undefined : rawPosition % (existing.length + 1);
          const chunks = chunk(added, size);
          const positions = chunkPositions(position, chunks.length, size);
          const list = [...existing];
          chunks.forEach((part, i) => {
            const at = positions[i] ?? list.length;
            list.splice(at, 0, ...part);
          });
          const at = position ?? existing.length;
          expect(list).toEqual([...existing.slice(0, at), ...added, ...existing.slice(at)]);
        },
      ),
    );
  });

  it('refuses a chunk size below 1', () => {
    expect(() => chunk([1], 0)).toThrow(RangeError);
  });
});

describe('paging', () => {
  it('maps a 1-based page number to offset and limit', () => {
    expect(pageOf(150)).toEqual({ offset: 7_450, limit: 50 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 100 }), (n, size) => {
        const { offset, limit } = pageOf(n, size);
        expect(limit).toBe(size);
        expect(offset / size + 1).toBe(n);
      }),
    );
    expect(() => pageOf(0)).toThrow(RangeError);
  });

  it('rewrites a page URL to another slice, keeping its other parameters', () => {
    const url = pageUrl(`${ORIGIN}/v1/playlists/x/tracks?offset=0&limit=100&market=US`, {
      offset: 7_450,
      limit: 50,
    });
    expect(new URL(url).searchParams.toString()).toBe('offset=7450&limit=50&market=US');
  });

  it('fetches any slice with one load', async () => {
    const list = servedList(10_000);
    const page = await list.registry.fetch(list.pageAt(0, 50), pageOf(150));
    expect(page.items[0]).toBe(7_450);
    expect(list.loads()).toBe(1);
  });

  it('iterates every item in order, loading only the pages it needs, up to the cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 50 }),
        fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
        async (total, limit, max) => {
          const list = servedList(total);
          const seen: number[] = [];
          for await (const item of list.registry.iterate(
            list.pageAt(0, limit),
            max === undefined ? {} : { max },
          ))
            seen.push(item);
          const count = Math.min(max ?? Number.POSITIVE_INFINITY, total);
          expect(seen).toEqual(list.items.slice(0, count));
          expect(list.loads()).toBe(count === 0 ? 0 : Math.ceil(count / limit) - 1);
        },
      ),
    );
  });

  it('goes on past a page whose items were all left out as unreadable, and stops where next loops', async () => {
    const registry = new PagingRegistry(ORIGIN);
    const url = (offset: number) => `${ORIGIN}/v1/me/playlists?offset=${offset}&limit=2`;
    // Page 2 came with two nulls (playlists the service owns), left out by the schema.
    const pages: Page<string>[] = [
      { href: url(0), items: ['a', 'b'], limit: 2, offset: 0, total: 6, next: url(2), previous: null },
      { href: url(2), items: [], limit: 2, offset: 2, total: 6, next: url(4), previous: url(0) },
      { href: url(4), items: ['e', 'f'], limit: 2, offset: 4, total: 6, next: null, previous: url(2) },
    ];
    const loader = (next: string): Promise<Page<string>> => {
      const page = pages.find((candidate) => candidate.href === next)!;
      return Promise.resolve(registry.register(page, loader));
    };
    const seen: string[] = [];
    for await (const item of registry.iterate(registry.register(pages[0]!, loader))) seen.push(item);
    expect(seen).toEqual(['a', 'b', 'e', 'f']);

    // An empty page whose next is itself is not followed for ever.
    const stuck: Page<string> = { ...pages[1]!, next: url(2) };
    let loads = 0;
    const again = registry.register(stuck, () => {
      loads++;
      return Promise.resolve(registry.register(stuck, () => Promise.reject(new Error('looped'))));
    });
    for await (const _ of registry.iterate(again)) void _;
    expect(loads).toBe(0);

    // Nor empty pages without end, each with a next of its own: twenty in a row end the list.
    let endless = 0;
    const emptyAt = (offset: number): Page<string> =>
      registry.register(
        {
          href: url(offset),
          items: [],
          limit: 2,
          offset,
          total: 1_000_000,
          next: url(offset + 2),
          previous: null,
        },
        () => {
          endless++;
          return Promise.resolve(emptyAt(offset + 2));
        },
      );
    for await (const _ of registry.iterate(emptyAt(0))) void _;
    expect(endless).toBe(19);
  });

  it('stops when the consumer stops', async () => {
    const list = servedList(1_000);
    for await (const item of list.registry.iterate(list.pageAt(0, 10))) if (item === 25) break;
    expect(list.loads()).toBe(2);
  });

  it('refuses to follow next to another origin', async () => {
    const registry = new PagingRegistry(ORIGIN);
    const page = registry.register<number>(
      {
        href: `${ORIGIN}/v1/x`,
        items: [1],
        limit: 1,
        offset: 0,
        total: 2,
        next: 'https://elsewhere.test/v1/x?offset=1',
        previous: null,
      },
      () => Promise.reject(new Error('must not load')),
    );
    const iterate = async () => {
      for await (const _ of registry.iterate(page)) void _;
    };
    await expect(iterate()).rejects.toBeInstanceOf(UnexpectedPagingUrlError);
  });

  it('refuses pages it did not fetch', async () => {
    const registry = new PagingRegistry(ORIGIN);
    const page: Page<number> = {
      href: `${ORIGIN}/v1/x`,
      items: [],
      limit: 1,
      offset: 0,
      total: 0,
      next: null,
      previous: null,
    };
    await expect(registry.fetch(page, { offset: 0, limit: 1 })).rejects.toBeInstanceOf(TypeError);
  });
});
