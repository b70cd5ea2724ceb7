import { beforeAll, describe, expect, test } from 'bun:test';
import { runWrite } from '../../src/platform/http/context';
import { createTreatment, streamTreatmentPlan } from '../../src/modules/risks/treatments-service';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';
import type { Actor } from '../../src/platform/permissions/permissions';

let env: TestEnv;
let admin: Actor;
let reader: TestUser;
const stamp = unique('plan');

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  reader = await makeUser(env, { 'risks:read': 'own' });
  const other = await makeUser(env, { 'risks:read': 'own' });
  // Risk titles out of their creation order; the reader owns B and A, another person owns C.
  const b = await makeRisk(env, admin, { title: `${stamp} B`, ownerId: reader.id });
  const a = await makeRisk(env, admin, { title: `${stamp} A`, ownerId: reader.id });
  const c = await makeRisk(env, admin, { title: `${stamp} C`, ownerId: other.id });
  const treat = (riskId: string, title: string, dueOn?: string) =>
    runWrite(env.ctx, (tx) => createTreatment(tx, admin, riskId, { type: 'mitigate', title, description: '', controlIds: [], ...(dueOn ? { dueOn } : {}) }));
  await treat(b, 'B undated');
  await treat(b, 'B late', '2027-03-01');
  await treat(b, 'B early', '2027-01-01');
  await treat(a, 'A only', '2027-06-01');
  await treat(c, 'C not readable', '2027-01-01');
});

async function plan(actor: Actor, pageSize: number) {
  const pages: string[][] = [];
  for await (const page of streamTreatmentPlan(env.ctx.db, actor, {}, pageSize)) {
    pages.push(page.filter((t) => t.riskTitle.startsWith(stamp)).map((t) => `${t.riskTitle.slice(stamp.length + 1)}: ${t.title}`));
  }
  return pages;
}

describe('the treatment plan, read a page at a time', () => {
  test('sorted by risk title, then due date with undated treatments last, across pages; only risks the reader may read', async () => {
    const pages = await plan(await reader.actor(), 2);
    expect(pages.flat()).toEqual(['A: A only', 'B: B early', 'B: B late', 'B: B undated']);
    expect(pages.every((p) => p.length <= 2)).toBe(true);
    expect(pages.length).toBeGreaterThanOrEqual(2);
  });

  test('at level all the other person\'s risk is in the plan too', async () => {
    expect((await plan(admin, 1000)).flat()).toContain('C: C not readable');
  });
});
