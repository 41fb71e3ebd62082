/**
 * Wakes waiters whenever the emulator's state changes. A waiter probes the state each time and
 * resolves with the first value its probe returns; a probe that throws rejects the wait.
 *
 * A waiter may name the one thing it watches (an interaction's id): it is then woken only by a
 * change to that thing, so a hundred interactions in flight do not each probe every change to the
 * others. Waiters without a key are woken by every change.
 */
export class Signal {
  readonly #anyChange = new Set<() => void>();
  readonly #byKey = new Map<string, Set<() => void>>();

  /** Wakes the waiters without a key and, given a key, those watching it. */
  notify(key?: string): void {
    if (key !== undefined) {
      const keyed = this.#byKey.get(key);
      if (keyed) for (const waiter of [...keyed]) waiter();
    }
    if (this.#anyChange.size > 0) for (const waiter of [...this.#anyChange]) waiter();
  }

  waitFor<T>(
    probe: () => T | undefined,
    timeoutMs: number,
    describe: () => string,
    key?: string,
  ): Promise<T> {
    try {
      const ready = probe();
      if (ready !== undefined) return Promise.resolve(ready);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<T>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.#remove(check, key);
      };
      const check = () => {
        try {
          const value = probe();
          if (value === undefined) return;
          cleanup();
          resolve(value);
        } catch (error) {
          cleanup();
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${describe()}`));
      }, timeoutMs);
      this.#add(check, key);
    });
  }

  #add(waiter: () => void, key: string | undefined): void {
    if (key === undefined) return void this.#anyChange.add(waiter);
    const keyed = this.#byKey.get(key);
    if (keyed) keyed.add(waiter);
    else this.#byKey.set(key, new Set([waiter]));
  }

  #remove(waiter: () => void, key: string | undefined): void {
    if (key === undefined) return void this.#anyChange.delete(waiter);
    const keyed = this.#byKey.get(key);
    if (keyed?.delete(waiter) && keyed.size === 0) this.#byKey.delete(key);
  }
}
