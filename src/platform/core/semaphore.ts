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
    const turn = this.take();
    if (turn) await turn;
    try {
      return await task();
    } finally {
      this.give();
    }
  }

  /**
   * A turn, held until the returned function is called (once; later calls do nothing): for work that is not one
   * promise, such as a download read by its client at its own pace.
   */
  async acquire(): Promise<() => void> {
    const turn = this.take();
    if (turn) await turn;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.give();
    };
  }

  /** A slot now (undefined), or the wait for one handed over; SemaphoreFull when too many wait already. */
  private take(): Promise<void> | undefined {
    if (this.active >= this.limit) {
      if (this.waiting.length >= this.maxWaiting) throw new SemaphoreFull('too many tasks waiting');
      // The slot is handed over by the task that finishes, so `active` never drops in between.
      return new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active += 1;
    this.peak = Math.max(this.peak, this.active);
    return undefined;
  }

  private give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }
}

/** The items of `items` read in a turn of `turns`: taken before the first, given back when the reading ends or stops. */
export async function* inTurn<T>(turns: Semaphore, items: AsyncIterable<T>): AsyncGenerator<T> {
  const release = await turns.acquire();
  try {
    yield* items;
  } finally {
    release();
  }
}
