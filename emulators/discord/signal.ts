/**
 * Wakes waiters whenever the emulator's state changes. A waiter probes the state each time and
 * resolves with the first value its probe returns; a probe that throws rejects the wait.
 */
export class Signal {
  readonly #waiters = new Set<() => void>();

  notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  waitFor<T>(probe: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
    try {
      const ready = probe();
      if (ready !== undefined) return Promise.resolve(ready);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<T>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
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
      this.#waiters.add(check);
    });
  }
}
