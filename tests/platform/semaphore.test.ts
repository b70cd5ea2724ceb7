import { describe, expect, test } from 'bun:test';
import { Semaphore, SemaphoreFull } from '../../src/platform/core/semaphore';

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
});
