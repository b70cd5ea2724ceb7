/** Thrown when a task would have to wait but `maxWaiting` tasks already do. */
export class SemaphoreFull extends Error {}

/** At most `limit` tasks run at once; up to `maxWaiting` more wait their turn, in order; beyond that, SemaphoreFull. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** The most tasks that ever ran at once (observability and tests). */
  peak = 0;

  constructor(readonly limit: number, readonly maxWaiting: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      if (this.waiting.length >= this.maxWaiting) throw new SemaphoreFull('too many tasks waiting');
      // The slot is handed over by the task that finishes, so `active` never drops in between.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active += 1;
    }
    this.peak = Math.max(this.peak, this.active);
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
