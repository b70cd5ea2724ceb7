import { ApiCallError, expectData, inParallel, type Instance } from './api';
import { BATCH_ENDPOINTS, KIND_LABEL, KINDS, type BatchEndpoint, type KindName, type Plan, type Step, type WriteOp } from './plan';

export interface ApplyOptions {
  /** Requests in flight at once. */
  parallel: number;
  /** Called as the steps of a kind finish. */
  progress?: (kind: KindName, done: number, total: number) => void;
}

/** Items per batch request, and the most JSON one request carries (the API takes 32 MB; policies carry content). */
const BATCH_ITEMS = 200;
const BATCH_BYTES = 4 * 1024 * 1024;

type BatchAnswer = { id: string; changed: boolean } | { error: string };

/**
 * Runs the plan's writes kind by kind (risk scale, classifications, package, controls, policies, approvals, risks,
 * treatments, mappings, requirement statuses), so every reference a write makes exists by then. Within a kind, a
 * step's writes run in order (a policy is created, then published); writes that have a batch operation go together,
 * up to 200 a request, the others one request each. A refused write is recorded with the API's error and the run goes
 * on; a step that needs a failed one is skipped and says which. Only failures of the instance as a whole
 * (unreachable, token refused) end the run, by throwing. Returns the seconds each kind took.
 */
export async function applyPlan(plan: Plan, instance: Instance, options: ApplyOptions): Promise<Partial<Record<KindName, number>>> {
  const seconds: Partial<Record<KindName, number>> = {};
  for (const [kind] of KINDS) {
    const steps = plan.steps.filter((s) => s.kind === kind);
    for (const step of steps) if (step.action === 'unchanged') step.outcome = 'done';
    const writes = steps.filter((s) => s.action !== 'unchanged');
    if (writes.length === 0) continue;
    const started = performance.now();
    let finished = 0;
    const finish = (step: Step, outcome: 'done' | 'failed' | 'skipped', error?: string) => {
      step.outcome = outcome;
      if (error) step.error = error;
      options.progress?.(kind, ++finished, writes.length);
    };
    options.progress?.(kind, 0, writes.length);
    let live: Step[] = [];
    for (const step of writes) {
      const blocked = step.needs.find((need) => need.outcome === 'failed' || need.outcome === 'skipped');
      if (blocked) {
        finish(step, 'skipped', `not written: it needs ${[KIND_LABEL[blocked.kind], blocked.key].filter(Boolean).join(' ')}, which ${blocked.outcome === 'failed' ? 'failed' : 'was not written'}`);
      } else live.push(step);
    }
    for (let round = 0; live.length; round++) {
      const failed = new Map<Step, string>();
      await runRound(instance, live.map((step) => ({ step, op: step.ops[round] })), options.parallel, failed);
      for (const step of live) {
        const error = failed.get(step);
        if (error !== undefined) finish(step, 'failed', error);
        else if (round + 1 >= step.ops.length) finish(step, 'done');
      }
      live = live.filter((step) => !failed.has(step) && round + 1 < step.ops.length);
    }
    seconds[kind] = Math.round(performance.now() - started) / 1000;
  }
  return seconds;
}

interface Pending {
  step: Step;
  op: WriteOp;
}

/** One write of each step: batchable ones in chunks per endpoint, the rest singly; refusals go into `failed`. */
async function runRound(instance: Instance, pending: Pending[], parallel: number, failed: Map<Step, string>): Promise<void> {
  const tasks: (() => Promise<void>)[] = [];
  const byEndpoint = new Map<BatchEndpoint, { entry: Pending; item: unknown; size: number }[]>();
  for (const entry of pending) {
    if (!entry.op.batch) {
      tasks.push(() => runSingle(entry, failed));
      continue;
    }
    let item: unknown;
    try {
      item = entry.op.batch.item();
    } catch (error) {
      if (!(error instanceof ApiCallError)) throw error;
      failed.set(entry.step, error.message);
      continue;
    }
    const list = byEndpoint.get(entry.op.batch.endpoint) ?? [];
    list.push({ entry, item, size: JSON.stringify(item).length });
    byEndpoint.set(entry.op.batch.endpoint, list);
  }
  for (const [endpoint, items] of byEndpoint) {
    let chunk: typeof items = [];
    let bytes = 0;
    const flush = () => {
      if (chunk.length === 0) return;
      const sending = chunk;
      tasks.push(() => runBatch(instance, endpoint, sending, failed));
      chunk = [];
      bytes = 0;
    };
    for (const item of items) {
      if (chunk.length >= BATCH_ITEMS || (chunk.length && bytes + item.size > BATCH_BYTES)) flush();
      chunk.push(item);
      bytes += item.size;
    }
    flush();
  }
  await inParallel(tasks, parallel, (task) => task());
}

async function runSingle({ step, op }: Pending, failed: Map<Step, string>): Promise<void> {
  try {
    const id = await op.single();
    if (typeof id === 'string') op.done?.(id);
  } catch (error) {
    if (!(error instanceof ApiCallError)) throw error;
    failed.set(step, error.message);
  }
}

/**
 * One batch request; each item's result settles its step. A request refused as a whole (its body, its size) is sent
 * again item by item, so one bad item does not take the others down with it.
 */
async function runBatch(instance: Instance, endpoint: BatchEndpoint, chunk: { entry: Pending; item: unknown }[], failed: Map<Step, string>): Promise<void> {
  const [method, path] = BATCH_ENDPOINTS[endpoint];
  const call = `${method} ${path}`;
  let results: BatchAnswer[];
  try {
    const body = { items: chunk.map((c) => c.item) } as never;
    const answer = method === 'POST'
      ? await expectData(call, instance.client.POST(path as '/api/v1/controls/batch', { body }))
      : await expectData(call, instance.client.PATCH(path as '/api/v1/controls/batch', { body }));
    results = answer.data.results as BatchAnswer[];
  } catch (error) {
    if (!(error instanceof ApiCallError)) throw error;
    await inParallel(chunk, 4, ({ entry }) => runSingle(entry, failed));
    return;
  }
  chunk.forEach(({ entry }, i) => {
    const result = results[i];
    if (!result) failed.set(entry.step, `${call}: no result for this item`);
    else if ('error' in result) failed.set(entry.step, `${call}: ${result.error}`);
    else entry.op.done?.(result.id);
  });
}
