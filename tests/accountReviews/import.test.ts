import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { itemTemplate } from '../../src/modules/accountReviews/import';
import { ADMIN_EMAIL, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['accountReviews:read', 'accountReviews:create', 'accountReviews:update']);
});

const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;

interface Answer {
  outcome: string;
  counts: Record<string, number>;
  rows: { line: number; outcome: string; changes?: { column: string; old: string; new: string }[]; errors?: { column: string; message: string }[] }[];
}
interface Item { id: string; account: string; system: string; decision: string | null; reviewedAt: string | null; owner: { email: string } | null; reviewer: { email: string } | null }

async function makeProgram(secret = token): Promise<string> {
  const res = await env.request('/api/v1/account-reviews', bearer(secret, { method: 'POST', body: JSON.stringify({ name: unique('Imported review') }) }));
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

const upload = (programId: string, mode: 'check' | 'apply' | 'check&outcome=error', csv: string, secret = token, fileName = 'accounts.csv') =>
  env.request(`/api/v1/account-reviews/${programId}/items/import?mode=${mode}`, {
    method: 'POST', body: csv, headers: { authorization: `Bearer ${secret}`, 'content-type': 'text/csv', 'x-file-name': fileName },
  });

const items = async (programId: string) =>
  (await json<{ rows: Item[] }>(await env.request(`/api/v1/account-reviews/${programId}/items?pageSize=200`, bearer(token)))).rows;

describe('account review CSV import', () => {
  test("the template's help row is skipped; a first account whose name starts with # is imported", async () => {
    const id = await makeProgram();
    const template = itemTemplate().replace(/^\uFEFF/, '');
    const fromTemplate = await json<Answer>(await upload(id, 'check', `${template},alice,CRM,,,,\r\n`));
    expect(fromTemplate.rows).toEqual([{ line: 3, outcome: 'create' }]);
    const hashed = await json<Answer>(await upload(id, 'check', 'account,system\n#svc-backup,CRM\nbob,CRM\n'));
    expect(hashed.rows).toEqual([{ line: 2, outcome: 'create' }, { line: 3, outcome: 'create' }]);
  });

  test('check reports every row and saves nothing; apply imports them with History marked as the file', async () => {
    const id = await makeProgram();
    const csv = [
      'id,account*,system*,owner,decision,reviewer,reviewed_at',
      `,alice,CRM,${ADMIN_EMAIL},,,`,
      ',bob,CRM,,Revoke,,2026-01-15',
      ',carol,"ERP, finance",,keep,,',
    ].join('\r\n');
    const checked = await upload(id, 'check', csv);
    expect(checked.status, await checked.clone().text()).toBe(200);
    const check = await json<Answer>(checked);
    expect(check).toMatchObject({ outcome: 'checked', counts: { create: 3, update: 0, unchanged: 0, error: 0 } });
    expect(await items(id)).toHaveLength(0);

    const applied = await upload(id, 'apply', csv);
    expect(applied.status, await applied.clone().text()).toBe(200);
    expect((await json<Answer>(applied)).outcome).toBe('imported');
    const stored = await items(id);
    expect(stored.map((i) => `${i.system}/${i.account}/${i.decision ?? 'pending'}`)).toEqual(['CRM/alice/pending', 'CRM/bob/revoke', 'ERP, finance/carol/keep']);
    const bob = stored.find((i) => i.account === 'bob')!;
    expect(bob.reviewedAt).toBe('2026-01-15T00:00:00.000Z');
    expect(bob.reviewer?.email).toBe(ADMIN_EMAIL);
    expect(stored.find((i) => i.account === 'alice')!.owner?.email).toBe(ADMIN_EMAIL);

    const history = await json<{ action: string; via: string; source: string }[]>(
      await env.request(`/api/v1/account-reviews/${id}/items/${bob.id}/history`, bearer(token)));
    expect(history[0]).toMatchObject({ action: 'create', via: 'import', source: 'CSV import of accounts.csv' });
    const summaries = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.action, 'import'), eq(auditLog.module, 'accountReviews'), eq(auditLog.recordId, id)));
    expect(summaries).toHaveLength(1);
    expect(summaries[0].details).toMatchObject({ file: 'accounts.csv', rows: 3, outcome: 'imported' });
  });

  test('rows with an id update those items; unchanged rows are reported as such', async () => {
    const id = await makeProgram();
    await upload(id, 'apply', 'account,system\ndave,VPN\nerin,VPN\n');
    const [dave, erin] = await items(id);
    const csv = `id,account,system,decision\n${dave.id},dave,VPN,modify\n${erin.id},erin,VPN,\n`;
    const result = await json<Answer>(await upload(id, 'apply', csv));
    expect(result.counts).toEqual({ create: 0, update: 1, unchanged: 1, error: 0 });
    expect(result.rows[0].changes?.map((c) => c.column)).toEqual(['decision', 'reviewer', 'reviewed_at']);
    const after = await items(id);
    expect(after[0]).toMatchObject({ decision: 'modify', reviewer: { email: ADMIN_EMAIL } });
    const history = await json<{ action: string; changes: Record<string, { after: unknown }> }[]>(
      await env.request(`/api/v1/account-reviews/${id}/items/${dave.id}/history`, bearer(token)));
    expect(history[0]).toMatchObject({ action: 'update', changes: { decision: { after: 'modify' } } });
  });

  test('one bad row refuses the whole file, listing every reason by line', async () => {
    const id = await makeProgram();
    const other = await makeProgram();
    await upload(other, 'apply', 'account,system\nzed,LDAP\n');
    const [foreign] = await items(other);
    const csv = [
      'id,account,system,owner,decision,reviewer,reviewed_at',
      ',frank,CRM,,,,',
      ',,,nobody@test.example,maybe,,2026-02-30',
      ',frank,CRM,,,,',
      `${foreign.id},zed,LDAP,,,,`,
      ',gina,CRM,,,ghost@test.example,',
    ].join('\n');
    const refused = await upload(id, 'apply', csv);
    expect(refused.status).toBe(422);
    const answer = await json<Answer>(refused);
    expect(answer.outcome).toBe('refused');
    expect(answer.counts).toMatchObject({ create: 1, error: 4 });
    const byLine = new Map(answer.rows.map((r) => [r.line, r]));
    expect(byLine.get(3)!.errors!.map((e) => e.column).sort()).toEqual(['account', 'decision', 'owner', 'reviewed_at', 'system']);
    expect(byLine.get(4)!.errors![0].message).toContain('also on line 2');
    expect(byLine.get(5)!.errors![0]).toMatchObject({ column: 'id' });
    expect(byLine.get(6)!.errors!.map((e) => e.column).sort()).toEqual(['reviewer']);
    expect(await items(id)).toHaveLength(0);
  });

  test('a file refused as a whole, a closed program, and a token without update are refused', async () => {
    const id = await makeProgram();
    const unknown = await upload(id, 'check', 'account,system,colour\na,b,red\n');
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { error: string }).error).toContain('colour');

    const reader = await makeToken(env, await adminActor(env), ['accountReviews:read']);
    expect(await refusalOf(env, async () => upload(id, 'check', 'account,system\na,b\n', reader))).toEqual(refusedWith(403, 'forbidden', 'token scope accountReviews:update missing'));

    await env.request(`/api/v1/account-reviews/${id}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ status: 'closed' }) }));
    expect((await upload(id, 'apply', 'account,system\na,b\n')).status).toBe(409);
  });

  test('at level own a user imports only into programs they own', async () => {
    const user = await makeUser(env, { 'accountReviews:read': 'own', 'accountReviews:create': 'own', 'accountReviews:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['accountReviews:read', 'accountReviews:create', 'accountReviews:update']);
    const mine = await makeProgram(own);
    const theirs = await makeProgram();
    expect(await refusalOf(env, async () => upload(theirs, 'check', 'account,system\na,b\n', own))).toEqual(refusedWith(404, 'Review program <id> not found', 'no accountReviews:read on Review program <id>'));
    const res = await upload(mine, 'apply', 'account,system\na,b\n', own);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  test('a file larger than one chunk is imported whole, and a repeat across chunks is still caught', async () => {
    const id = await makeProgram();
    const lines = Array.from({ length: 1_500 }, (_, i) => `user${i},Mainframe`);
    // The error row is past the first page of rows; the answer lists the error rows alone when asked.
    const refused = await json<Answer>(await upload(id, 'check&outcome=error', ['account,system', ...lines, 'user3,Mainframe'].join('\n')));
    expect(refused.counts).toEqual({ create: 1_500, update: 0, unchanged: 0, error: 1 });
    expect(refused.rows.find((r) => r.outcome === 'error')!.errors![0].message).toContain('also on line 5');
    const started = performance.now();
    const applied = await upload(id, 'apply', ['account,system', ...lines].join('\n'));
    expect(applied.status, await applied.clone().text()).toBe(200);
    expect(performance.now() - started).toBeLessThan(15_000);
    const page = await json<{ total: number }>(await env.request(`/api/v1/account-reviews/${id}/items?pageSize=1`, bearer(token)));
    expect(page.total).toBe(1_500);
  }, 30_000);
});
