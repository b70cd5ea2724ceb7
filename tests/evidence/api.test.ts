import { beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, gt } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, classificationId, makeToken, makeUser } from '../helpers/factories';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { todayIso } from '../../src/platform/core/dates';
import { errorOf, restClient, sha256 } from './helpers';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let token: string;
let api: ReturnType<typeof restClient>;

const ALL_READS: Permission[] = ['controls:read', 'risks:read', 'policies:read', 'thirdParties:read', 'audits:read', 'incidents:read', 'compliance:read'];
const EVIDENCE_RIGHTS: Permission[] = ['evidence:read', 'evidence:create', 'evidence:update', 'evidence:delete'];

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [
    ...EVIDENCE_RIGHTS, ...ALL_READS, 'controls:create', 'controls:update', 'risks:create', 'policies:create', 'thirdParties:create',
    'audits:create', 'incidents:create', 'compliance:create',
  ]);
  api = restClient(env, token);
});

/** A user whose role grants `rights` (and making tokens), with a token of `scopes`. */
async function userWithToken(rights: Partial<Record<Permission, 'own' | 'all'>>, scopes: Permission[]) {
  const user = await makeUser(env, { ...rights, 'apiTokens:create': 'own' });
  return { user, userToken: await makeToken(env, await user.actor(), scopes) };
}

const base = (id: string) => `/api/v1/evidence/${id}`;
const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
type View = Record<string, unknown> & { id: string; status: string; locked: boolean };
const read = async (id: string) => api.json<View>(await api.send('GET', base(id)));
const newEvidence = (body: Record<string, unknown> = {}) => api.created('/api/v1/evidence', { title: `Evidence ${crypto.randomUUID().slice(0, 8)}`, ...body });

describe('evidence records', () => {
  test('evidence made with a title alone is current evidence collected today, owned by its creator, with no files or links', async () => {
    const id = await newEvidence({ title: 'Quarterly access review export' });
    expect(await read(id)).toMatchObject({
      title: 'Quarterly access review export', kind: 'evidence', collectedOn: todayIso(), validUntil: null, status: 'current', locked: false,
      fileCount: 0, linkCount: 0, owner: { email: 'admin@test.example' },
    });
  });

  test('the status follows valid until: expired before today, expiring within 30 days, current after', async () => {
    const past = await newEvidence({ collectedOn: '2025-01-01', validUntil: daysFromToday(-1) });
    const soon = await newEvidence({ validUntil: daysFromToday(30) });
    const later = await newEvidence({ validUntil: daysFromToday(31) });
    expect([(await read(past)).status, (await read(soon)).status, (await read(later)).status]).toEqual(['expired', 'expiring', 'current']);
    const expiring = await api.json<{ rows: View[] }>(await api.send('GET', '/api/v1/evidence?status=expiring&pageSize=200'));
    expect(expiring.rows.every((row) => row.status === 'expiring')).toBe(true);
    expect(expiring.rows.map((row) => row.id)).toContain(soon);
  });

  test('a vendor report names its third party; dates must be real and valid until cannot precede collected on', async () => {
    const refused = await api.send('POST', '/api/v1/evidence', { title: 'SOC 2 Type II', kind: 'vendor_report' });
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toContain('thirdPartyId');
    const backwards = await api.send('POST', '/api/v1/evidence', { title: 'Backwards', collectedOn: '2026-03-01', validUntil: '2026-02-01' });
    expect(backwards.status).toBe(400);
    expect(await errorOf(backwards)).toContain('validUntil');
    const unreal = await api.send('POST', '/api/v1/evidence', { title: 'Unreal', collectedOn: '2026-02-30' });
    expect(unreal.status).toBe(400);
    const vendor = await api.created('/api/v1/third-parties', { name: 'Cloud Host' });
    const report = await newEvidence({ kind: 'vendor_report', thirdPartyId: vendor });
    expect(await read(report)).toMatchObject({ kind: 'vendor_report', thirdPartyId: vendor });
    const vendorReports = await api.json<{ rows: View[] }>(await api.send('GET', '/api/v1/evidence?kind=vendor_report&pageSize=200'));
    expect(vendorReports.rows.map((r) => r.id)).toContain(report);
    expect(vendorReports.rows.every((r) => r.kind === 'vendor_report')).toBe(true);
  });

  test('a vendor report naming a third party the caller may not read is refused 404 like a missing one', async () => {
    const vendor = await api.created('/api/v1/third-parties', { name: 'Hidden Vendor' });
    const { user, userToken } = await userWithToken({ 'evidence:read': 'all', 'evidence:create': 'all', 'thirdParties:read': 'own' }, ['evidence:read', 'evidence:create', 'thirdParties:read']);
    const res = await api.send('POST', '/api/v1/evidence', { title: 'Report', kind: 'vendor_report', thirdPartyId: vendor }, userToken);
    expect(res.status).toBe(404);
    const missing = await api.send('POST', '/api/v1/evidence', { title: 'Report', kind: 'vendor_report', thirdPartyId: crypto.randomUUID() }, userToken);
    expect(missing.status).toBe(404);
  });

  test('lists sort by their columns and filter by owner and locked', async () => {
    const marker = crypto.randomUUID().slice(0, 8);
    const ids = [await newEvidence({ title: `${marker} B` }), await newEvidence({ title: `${marker} A` }), await newEvidence({ title: `${marker} C` })];
    await api.send('POST', `${base(ids[2])}/lock`);
    const sorted = await api.json<{ rows: View[] }>(await api.send('GET', `/api/v1/evidence?q=${marker}&sort=title`));
    expect(sorted.rows.map((r) => r.title)).toEqual([`${marker} A`, `${marker} B`, `${marker} C`]);
    const locked = await api.json<{ rows: View[]; total: number }>(await api.send('GET', `/api/v1/evidence?q=${marker}&locked=true`));
    expect(locked.rows.map((r) => r.id)).toEqual([ids[2]]);
    const unlocked = await api.json<{ total: number }>(await api.send('GET', `/api/v1/evidence?q=${marker}&locked=false`));
    expect(unlocked.total).toBe(2);
    const owned = await api.json<{ total: number }>(await api.send('GET', `/api/v1/evidence?q=${marker}&ownerId=${admin.userId}`));
    expect(owned.total).toBe(3);
  });

  test('custom fields defined for evidence are accepted, returned and kept in the History', async () => {
    const key = `source_${crypto.randomUUID().slice(0, 6)}`;
    const adminToken = await makeToken(env, admin, ['customFields:create', ...EVIDENCE_RIGHTS]);
    const defined = await api.send('POST', '/api/v1/custom-fields', { module: 'evidence', key, label: 'Source system', type: 'text' }, adminToken);
    expect(defined.status, await defined.clone().text()).toBe(201);
    const id = await newEvidence({ customFields: { [key]: 'Okta' } });
    expect((await read(id)).customFields).toEqual({ [key]: 'Okta' });
  });

  test('own level: a user sees only the evidence they or their groups own', async () => {
    const { user, userToken } = await userWithToken({ 'evidence:read': 'own', 'evidence:create': 'own' }, ['evidence:read', 'evidence:create']);
    const mine = await api.created('/api/v1/evidence', { title: 'Mine' }, userToken);
    const theirs = await newEvidence({ title: 'Not mine' });
    const listed = await api.json<{ rows: View[] }>(await api.send('GET', '/api/v1/evidence?pageSize=200', undefined, userToken));
    expect(listed.rows.map((r) => r.id)).toEqual([mine]);
    expect(await refusalOf(env, async () => api.send('GET', base(theirs), undefined, userToken))).toEqual(refusedWith(404, 'Evidence <id> not found', 'no evidence:read on Evidence <id>'));
  });
});

describe('links to the records evidence proves', () => {
  /** One record of each linkable type, made through the REST API. */
  async function recordsOfEveryType() {
    const control = await api.created('/api/v1/controls', { name: 'Quarterly access review' });
    const tested = await api.send('POST', `/api/v1/controls/${control}/tests`, { testedOn: '2026-10-01', result: 'pass' });
    const controlTest = (await api.json<{ id: string }>(tested)).id;
    const risk = await api.created('/api/v1/risks', { title: 'Stale accounts', classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3 });
    const policy = await api.created('/api/v1/policies', { title: 'Access control policy' });
    const thirdParty = await api.created('/api/v1/third-parties', { name: 'Payroll SaaS' });
    const auditPlan = await api.created('/api/v1/audits', { title: 'ISO surveillance audit' });
    const auditFinding = await api.created('/api/v1/audit-findings', { auditPlanId: auditPlan, title: 'Missing review evidence' });
    const incident = await api.created('/api/v1/incidents', { title: 'Lost laptop' });
    const pkg = await api.created('/api/v1/compliance/packages', { name: `Pkg ${crypto.randomUUID().slice(0, 6)}`, items: [{ code: 'A.5.15', name: 'Access control' }] });
    const analyses = await api.json<{ rows: { id: string }[] }>(await api.send('GET', `/api/v1/compliance/analyses?packageId=${pkg}`));
    return { control, controlTest, requirement: analyses.rows[0].id, risk, policy, thirdParty, auditPlan, auditFinding, incident };
  }

  test('evidence links to a record of every supported type and lists each by name, in the History by type and id', async () => {
    const records = await recordsOfEveryType();
    const id = await newEvidence();
    for (const [recordType, recordId] of Object.entries(records)) {
      const res = await api.send('POST', `${base(id)}/links`, { recordType, recordId });
      expect(res.status, `${recordType}: ${await res.clone().text()}`).toBe(201);
    }
    const links = await api.json<{ recordType: string; recordId: string; title: string; href: string }[]>(await api.send('GET', `${base(id)}/links`));
    expect(links.map((l) => l.recordType).sort()).toEqual(Object.keys(records).sort());
    expect(links.find((l) => l.recordType === 'requirement')?.title).toBe('A.5.15 Access control');
    expect(links.find((l) => l.recordType === 'controlTest')?.href).toBe(`/controls/${records.control}`);
    const again = await api.send('POST', `${base(id)}/links`, { recordType: 'risk', recordId: records.risk });
    expect(again.status).toBe(409);
    const history = await api.json<{ action: string; changes: Record<string, { after: unknown }> }[]>(await api.send('GET', `${base(id)}/history`));
    expect(history.filter((h) => h.action === 'link')).toHaveLength(9);
    const unlinked = await api.send('DELETE', `${base(id)}/links/risk/${records.risk}`);
    expect(unlinked.status).toBe(204);
    expect((await read(id)).linkCount).toBe(8);
    const byRecord = await api.json<{ rows: View[] }>(await api.send('GET', `/api/v1/evidence?linked=${records.policy}`));
    expect(byRecord.rows.map((r) => r.id)).toEqual([id]);
  });

  test("linking needs the linked module's read scope (403), and a record the caller can read (404, audited)", async () => {
    const control = await api.created('/api/v1/controls', { name: 'Hidden control' });
    const noControls = await makeToken(env, admin, EVIDENCE_RIGHTS);
    const id = await newEvidence();
    const scopeless = await api.send('POST', `${base(id)}/links`, { recordType: 'control', recordId: control }, noControls);
    expect(scopeless.status).toBe(403);

    const { user, userToken } = await userWithToken({ 'evidence:read': 'all', 'evidence:update': 'all', 'controls:read': 'own' }, ['evidence:read', 'evidence:update', 'controls:read']);
    const [{ seq }] = await env.ctx.db.select({ seq: auditLog.seq }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
    const unreadable = await api.send('POST', `${base(id)}/links`, { recordType: 'control', recordId: control }, userToken);
    expect(unreadable.status).toBe(404);
    const missing = await api.send('POST', `${base(id)}/links`, { recordType: 'control', recordId: crypto.randomUUID() }, userToken);
    expect(missing.status).toBe(404);
    expect(await errorOf(unreadable)).toBe(`recordId: Control ${control} not found`);
    const denials = await env.ctx.db.select().from(auditLog)
      .where(and(gt(auditLog.seq, seq), eq(auditLog.module, 'security'), eq(auditLog.action, 'permission.denied')));
    expect(denials.map((d) => (d.details as { reason: string }).reason)).toContainEqual(expect.stringContaining('not readable'));
  });

  test('a linked record the reader may not read is listed as (restricted), never by name', async () => {
    const control = await api.created('/api/v1/controls', { name: 'Secret control name' });
    const id = await newEvidence();
    await api.send('POST', `${base(id)}/links`, { recordType: 'control', recordId: control });
    const { user, userToken } = await userWithToken({ 'evidence:read': 'all', 'controls:read': 'own' }, ['evidence:read', 'controls:read']);
    const res = await api.send('GET', `${base(id)}/links`, undefined, userToken);
    expect(await res.text()).not.toContain('Secret control name');
    const [link] = await api.json<{ title: string; href: string | null }[]>(await api.send('GET', `${base(id)}/links`, undefined, userToken));
    expect(link).toMatchObject({ title: '(restricted)', href: null });
  });
});

describe('files', () => {
  test('an upload is stored with the SHA-256 of its bytes; the download answers it in X-Content-SHA256 with the UTF-8 name', async () => {
    const id = await newEvidence();
    const content = `%PDF-1.7\n${'evidence '.repeat(5000)}`;
    const res = await api.upload(id, 'Rapport d’accès été.pdf', content);
    expect(res.status, await res.clone().text()).toBe(201);
    const file = await api.json<{ id: string; sha256: string; size: number; contentType: string; name: string }>(res);
    expect(file).toMatchObject({ sha256: sha256(content), size: content.length, contentType: 'application/pdf', name: 'Rapport d’accès été.pdf' });
    const download = await api.send('GET', `${base(id)}/files/${file.id}/content`);
    expect(download.status).toBe(200);
    expect(download.headers.get('x-content-sha256')).toBe(sha256(content));
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="Rapport d_acces ete.pdf"; filename*=UTF-8''Rapport%20d%E2%80%99acc%C3%A8s%20%C3%A9t%C3%A9.pdf`,
    );
    expect(await download.text()).toBe(content);
    const listed = await api.json<{ id: string }[]>(await api.send('GET', `${base(id)}/files`));
    expect(listed.map((f) => f.id)).toEqual([file.id]);
    const history = await api.json<{ action: string; changes: Record<string, { after: unknown }> }[]>(await api.send('GET', `${base(id)}/history`));
    expect(history[0]).toMatchObject({ action: 'file.upload', changes: { fileName: { after: 'Rapport d’accès été.pdf' }, sha256: { after: sha256(content) } } });
  });

  test('the type comes from the content, not the name', async () => {
    const id = await newEvidence();
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const asPdf = await api.json<{ contentType: string }>(await api.upload(id, 'screenshot.pdf', png));
    expect(asPdf.contentType).toBe('image/png');
    const html = await api.json<{ contentType: string; id: string }>(await api.upload(id, 'page.html', '<script>alert(1)</script>'));
    expect(html.contentType).toBe('text/plain; charset=utf-8');
    const download = await api.send('GET', `${base(id)}/files/${html.id}/content`);
    expect(download.headers.get('content-disposition')).toStartWith('attachment;');
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test('Range requests are answered 206 with the bytes asked for, 416 outside the file', async () => {
    const id = await newEvidence();
    const file = await api.json<{ id: string }>(await api.upload(id, 'digits.txt', '0123456789'));
    const url = `${base(id)}/files/${file.id}/content`;
    const part = await env.request(url, { headers: { authorization: `Bearer ${token}`, range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(await part.text()).toBe('2345');
    const tail = await env.request(url, { headers: { authorization: `Bearer ${token}`, range: 'bytes=-3' } });
    expect(await tail.text()).toBe('789');
    const outside = await env.request(url, { headers: { authorization: `Bearer ${token}`, range: 'bytes=10-20' } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe('bytes */10');
  });

  test('bad uploads are refused with a clear 400: an empty file, a blank name, path separators (and look-alikes), control and invisible characters, Windows device names and drives', async () => {
    const id = await newEvidence();
    const cases: [string, BodyInit, string][] = [
      ['empty.txt', '', 'empty'],
      ['   ', 'x', 'blank'],
      ['../etc/passwd', 'x', 'path separators'],
      ['dir\\file.txt', 'x', 'path separators'],
      ['bell\u0007.txt', 'x', 'control characters'],
      ['line\nbreak.txt', 'x', 'control characters'],
      ['invoice\u202Efdp.exe', 'x', 'invisible characters'],
      ['report\u200B.pdf', 'x', 'invisible characters'],
      ['..\u2215..\u2215etc', 'x', 'look like a slash'],
      ['dir\uFF0Ffile.txt', 'x', 'look like a slash'],
      ['CON', 'x', 'Windows reserves'],
      ['nul.txt', 'x', 'Windows reserves'],
      ['com1.log', 'x', 'Windows reserves'],
      ['C:evil.txt', 'x', 'drive letter'],
    ];
    for (const [name, body, message] of cases) {
      const res = await api.upload(id, name, body);
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(await errorOf(res)).toContain(message);
    }
    const noName = await env.request(`${base(id)}/files`, { method: 'POST', body: 'x', headers: { authorization: `Bearer ${token}` } });
    expect(noName.status).toBe(400);
    expect((await read(id)).fileCount).toBe(0);
  });

  test('a removed file is gone from the list and the store, and the History names it with its SHA-256', async () => {
    const id = await newEvidence();
    const file = await api.json<{ id: string }>(await api.upload(id, 'old.txt', 'superseded'));
    expect((await api.send('DELETE', `${base(id)}/files/${file.id}`)).status).toBe(204);
    expect(await api.json<unknown[]>(await api.send('GET', `${base(id)}/files`))).toEqual([]);
    expect(await refusalOf(env, async () => api.send('GET', `${base(id)}/files/${file.id}/content`))).toEqual(refusedWith(404, 'File <id> of evidence <id> not found'));
    const [removed] = await api.json<{ action: string; changes: Record<string, { before: unknown }> }[]>(await api.send('GET', `${base(id)}/history`));
    expect(removed).toMatchObject({ action: 'file.remove', changes: { fileName: { before: 'old.txt' }, sha256: { before: sha256('superseded') } } });
  });

  test('evidence with files cannot be deleted until they are removed; the 409 says so', async () => {
    const id = await newEvidence();
    await api.upload(id, 'a.txt', 'a');
    const refused = await api.send('DELETE', base(id));
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('still referenced by 1 file;');
  });
});

describe('lock and unlock', () => {
  test('locked evidence refuses every change to its fields, files and links with a 409 naming the lock', async () => {
    const control = await api.created('/api/v1/controls', { name: 'Backups' });
    const id = await newEvidence();
    const file = await api.json<{ id: string }>(await api.upload(id, 'kept.txt', 'kept'));
    await api.send('POST', `${base(id)}/links`, { recordType: 'control', recordId: control });
    const locked = await api.send('POST', `${base(id)}/lock`);
    expect(await api.json<View>(locked)).toMatchObject({ locked: true });
    const attempts = [
      api.send('PATCH', base(id), { title: 'Changed' }),
      api.send('DELETE', base(id)),
      api.upload(id, 'more.txt', 'more'),
      api.send('DELETE', `${base(id)}/files/${file.id}`),
      api.send('POST', `${base(id)}/links`, { recordType: 'control', recordId: await api.created('/api/v1/controls', { name: 'Other' }) }),
      api.send('DELETE', `${base(id)}/links/control/${control}`),
      api.send('POST', `${base(id)}/lock`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(409);
      expect(await errorOf(res)).toContain('is locked');
    }
    expect(await read(id)).toMatchObject({ fileCount: 1, linkCount: 1, locked: true });
  });

  test('unlocking needs evidence:update at level all and is audited; then changes are accepted again', async () => {
    const { user, userToken } = await userWithToken({ 'evidence:read': 'own', 'evidence:create': 'own', 'evidence:update': 'own' }, ['evidence:read', 'evidence:create', 'evidence:update']);
    const id = await api.created('/api/v1/evidence', { title: 'My evidence' }, userToken);
    expect((await api.send('POST', `${base(id)}/lock`, undefined, userToken)).status).toBe(200);
    const refused = await api.send('POST', `${base(id)}/unlock`, undefined, userToken);
    expect(refused.status).toBe(403);
    const unlocked = await api.send('POST', `${base(id)}/unlock`);
    expect(await api.json<View>(unlocked)).toMatchObject({ locked: false, lockedAt: null });
    expect((await api.send('PATCH', base(id), { title: 'Edited after unlock' }, userToken)).status).toBe(200);
    const actions = (await api.json<{ action: string }[]>(await api.send('GET', `${base(id)}/history`))).map((h) => h.action);
    expect(actions.slice(0, 3)).toEqual(['update', 'unlock', 'lock']);
    const entries = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, id), eq(auditLog.action, 'unlock')));
    expect(entries).toHaveLength(1);
    expect(entries[0].actorTokenId).not.toBeNull();
  });
});

describe('reminders', () => {
  test('evidence expiring within 30 days or expired is listed for its owner, and only theirs', async () => {
    const { user, userToken } = await userWithToken({ 'evidence:read': 'own', 'evidence:create': 'own' }, ['evidence:read', 'evidence:create']);
    const soon = await api.created('/api/v1/evidence', { title: 'Pen test', validUntil: daysFromToday(10) }, userToken);
    const gone = await api.created('/api/v1/evidence', { title: 'Old ISO cert', collectedOn: '2024-01-01', validUntil: '2025-01-01' }, userToken);
    await api.created('/api/v1/evidence', { title: 'Fresh', validUntil: daysFromToday(200) }, userToken);
    await newEvidence({ title: 'Admin-owned expiring', validUntil: daysFromToday(5) });
    const reminders = await api.json<{ evidenceId: string; status: string }[]>(await api.send('GET', '/api/v1/evidence/reminders', undefined, userToken));
    expect(reminders.map((r) => [r.evidenceId, r.status])).toEqual([[gone, 'expired'], [soon, 'expiring']]);
  });
});
