/**
 * Paging: one request per page whatever its depth, and lazy iteration that follows `next` (the
 * spec's rule 1: use the service's URLs rather than computing offsets) up to a cap.
 */
import { UnexpectedPagingUrlError } from './errors.js';

/** Which slice of a list to fetch. */
export interface PageRequest {
  offset: number;
  limit: number;
}

/** A paging object as the service returns it. */
export interface Page<T> {
  href: string;
  items: T[];
  limit: number;
  offset: number;
  total: number;
  next: string | null;
  previous: string | null;
}

/** The documented maximum page size for most lists. */
export const MAX_PAGE_SIZE = 50;

/** Items yielded by `iterate` when no `max` is given: the size of the largest playlist the service allows. */
export const DEFAULT_ITERATE_MAX = 10_000;

/** The slice for a 1-based page number: page 150 of 50 is `{ offset: 7450, limit: 50 }`. */
export function pageOf(pageNumber: number, pageSize: number = MAX_PAGE_SIZE): PageRequest {
  if (!Number.isInteger(pageNumber) || pageNumber < 1)
    throw new RangeError(`page number must be 1 or more, got ${pageNumber}`);
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new RangeError(`page size must be 1 or more, got ${pageSize}`);
  return { offset: (pageNumber - 1) * pageSize, limit: pageSize };
}

/** How many pages of `pageSize` a list of `total` items has (at least one, even when empty). */
export function pageCount(total: number, pageSize: number = MAX_PAGE_SIZE): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** Rewrites a page's `href` to another slice of the same list, keeping its other parameters (market…). */
export function pageUrl(href: string, at: PageRequest): string {
  const url = new URL(href);
  url.searchParams.set('offset', String(at.offset));
  url.searchParams.set('limit', String(at.limit));
  return url.toString();
}

/**
 * The slice a paging URL of the service asks for: its `offset` and `limit` (0 and 20, the service's
 * defaults, when left out; its own links always carry both).
 */
export function sliceOf(url: string): PageRequest {
  const query = new URL(url).searchParams;
  const number = (name: string, fallback: number) => {
    const value = Number(query.get(name) ?? '');
    return query.get(name) !== null && Number.isInteger(value) && value >= 0 ? value : fallback;
  };
  return { offset: number('offset', 0), limit: number('limit', 20) };
}

/** Fetches the page at an absolute URL of the service, with the same token and schema as the page it came from. */
export type PageLoader<T> = (url: string) => Promise<Page<T>>;

/** Empty pages in a row after which {@link PagingRegistry.iterate} stops (1,000 unreadable items at 50 a page). */
const EMPTY_PAGES_MAX = 20;

/**
 * Remembers how each page was fetched, so that `fetch` and `iterate` can get other pages of the same
 * list with the same token and schema. Pages from another client are refused.
 */
export class PagingRegistry {
  private readonly loaders = new WeakMap<object, PageLoader<unknown>>();

  constructor(
    /** Only URLs on this origin are followed: a bearer token never goes anywhere else. */
    private readonly apiOrigin: string,
  ) {}

  register<T>(page: Page<T>, loader: PageLoader<T>): Page<T> {
    this.loaders.set(page, loader);
    return page;
  }

  /** Fetches another slice of the list `page` belongs to: exactly one request. */
  async fetch<T>(page: Page<T>, at: PageRequest): Promise<Page<T>> {
    return this.load(page, pageUrl(page.href, at));
  }

  /**
   * Yields the items of `first` and of every following page, fetching each page only when the
   * previous one is used up; stops at the last page or after `max` items.
   */
  async *iterate<T>(first: Page<T>, options: { max?: number } = {}): AsyncGenerator<T, void, undefined> {
    const max = options.max ?? DEFAULT_ITERATE_MAX;
    let page = first;
    let yielded = 0;
    // A page can come empty with a `next`: its items were left out as unreadable (the member's
    // playlists answer null for those the service owns), and the rest of the list follows. A
    // `next` already followed, or empty pages without end, would loop for ever.
    const followed = new Set<string>([page.href]);
    let emptyRun = 0;
    for (;;) {
      for (const item of page.items) {
        if (yielded >= max) return;
        yield item;
        yielded++;
      }
      emptyRun = page.items.length === 0 ? emptyRun + 1 : 0;
      const { next } = page;
      if (next === null || yielded >= max || followed.has(next) || emptyRun >= EMPTY_PAGES_MAX) return;
      followed.add(next);
      page = await this.load(page, next);
    }
  }

  private load<T>(from: Page<T>, url: string): Promise<Page<T>> {
    const loader = this.loaders.get(from) as PageLoader<T> | undefined;
    if (loader === undefined) throw new TypeError('this page was not fetched by this music client');
    const origin = new URL(url).origin;
    if (origin !== this.apiOrigin) throw new UnexpectedPagingUrlError(origin);
    return loader(url);
  }
}
