/** Splitting work to fit the service's per-request limits. */

/** Splits `items` into consecutive chunks of at most `size`, keeping order. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/**
 * Where each chunk of an insertion goes so that the final order is the asked one: the first chunk
 * at `position`, each next one right after the previous (`position + size * index`). Without a
 * position every chunk is appended, which keeps the order too.
 */
export function chunkPositions(
  position: number | undefined,
  chunkCount: number,
  size: number,
): (number | undefined)[] {
  return Array.from({ length: chunkCount }, (_, index) =>
    position === undefined ? undefined : position + size * index,
  );
}

/** Maps with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
