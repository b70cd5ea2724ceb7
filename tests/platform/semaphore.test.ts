import { describe, expect, test } from 'bun:test';
import { inTurn, Semaphore, SemaphoreFull } from '../../src/platform/core/semaphore';

describe('semaphore', () => {
  test('runs at most `limit` tasks at once, lets `maxWaiting` wait in order, and refuses beyond that', async () => {
    const semaphore = new Semaphore(2, 2);
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const task = (n: number) => semaphore.run(() => new Promise<number>((resolve) => {
      order.push(n);
      releases.push(() => resolve(n));
    }));
    const running = [task(1), task(2), task(3), task(4)];
    await expect(task(5)).rejects.toBeInstanceOf(SemaphoreFull);
    expect(order).toEqual([1, 2]);
    releases[0]();
    await running[0];
    expect(order).toEqual([1, 2, 3]);
    releases[1]();
    await running[1];
    expect(order).toEqual([1, 2, 3, 4]);
    releases[2]();
    releases[3]();
    expect(await Promise.all(running)).toEqual([1, 2, 3, 4]);
    expect(semaphore.peak).toBe(2);
  });

  test('a failing task frees its slot', async () => {
    const semaphore = new Semaphore(1, 1);
    await expect(semaphore.run(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await semaphore.run(async () => 'next')).toBe('next');
  });

  test('a stream read in a turn holds it from its first item until it ends or its reader stops, and waits for one before it', async () => {
    const semaphore = new Semaphore(1, 5);
    async function* items(name: string) {
      for (let i = 1; i <= 3; i++) yield `${name}${i}`;
    }
    const a = inTurn(semaphore, items('a'));
    const b = inTurn(semaphore, items('b'));
    expect((await a.next()).value).toBe('a1');
    // b waits while a is read, half-way.
    let bFirst: string | undefined;
    const bStarted = b.next().then((r) => { bFirst = r.value as string; });
    await Bun.sleep(20);
    expect(bFirst).toBeUndefined();
    // a's reader stops: its turn is given back, b takes it.
    await a.return(undefined);
    await bStarted;
    expect(bFirst).toBe('b1');
    expect((await b.next()).value).toBe('b2');
    expect((await b.next()).value).toBe('b3');
    expect((await b.next()).done).toBe(true);
    // Read to its end, b gave its turn back too.
    expect((await inTurn(semaphore, items('c')).next()).value).toBe('c1');
    expect(semaphore.peak).toBe(1);
  });

  test('a turn asked for when too many already wait is refused', async () => {
    const semaphore = new Semaphore(1, 0);
    const release = await semaphore.acquire();
    await expect(semaphore.acquire()).rejects.toBeInstanceOf(SemaphoreFull);
    release();
    (await semaphore.acquire())();
  });
});
