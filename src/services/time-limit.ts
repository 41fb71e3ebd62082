/**
 * `work`, or a rejection with `message` once `ms` have passed without it settling. The work itself
 * goes on (nothing here can stop it); the caller stops waiting for it.
 */
export function withinMs<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
