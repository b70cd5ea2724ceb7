import { beforeAll, describe, expect, test } from 'bun:test';
import { createRecord } from '../../src/platform/records/records';
import { runWrite } from '../../src/platform/http/context';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import { addItem, decideItem, programKind } from '../../src/modules/accountReviews/service';
import { processingActivityKind } from '../../src/modules/dataPrivacy/service';
import { assetKind } from '../../src/modules/assets/service';
import { thirdPartyKind } from '../../src/modules/thirdParties/service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';
import type { Actor } from '../../src/platform/permissions/permissions';

// The Report Center's account review results and Article 30 register, declared by their modules, and the CSV of any
// report holding every row the reader may read (streamed page by page), while the printable page shows the first 5,000.
let env: TestEnv;
let admin: Actor;
/** Reads the review programs they own (level own) and every processing activity, but only the third parties they own. */
let reader: TestUser;
const n: Record<string, string> = {};
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  reader = await makeUser(env, { 'accountReviews:read': 'own', 'dataPrivacy:read': 'all', 'thirdParties:read': 'own', 'assets:read': 'all' });
  for (const key of ['mine', 'theirs', 'erp', 'crm', 'vendor', 'asset', 'payroll', 'hosting', 'retired']) n[key] = unique(key);

  // Two programs: the reader owns one; the other is the administrator's.
  const mine = await runWrite(env.ctx, (tx) => createRecord(tx, programKind, admin, { name: n.mine, ownerId: reader.id, dueOn: '2026-06-30' }));
  const theirs = await runWrite(env.ctx, (tx) => createRecord(tx, programKind, admin, { name: n.theirs }));
  const revoked = await runWrite(env.ctx, (tx) => addItem(tx, admin, mine.id, { account: 'jdoe', system: n.erp, owner: reader.email }));
  await runWrite(env.ctx, (tx) => addItem(tx, admin, mine.id, { account: '=cmd|calc', system: n.crm }));
  await runWrite(env.ctx, (tx) => decideItem(tx, admin, mine.id, revoked.id, { decision: 'revoke', reviewer: reader.email, notes: 'Left in May' }));
  await runWrite(env.ctx, (tx) => addItem(tx, admin, theirs.id, { account: 'root', system: n.erp }));

  // Processing activities: one whose processor the reader may not read, one owned by the reader's group, one retired.
  const vendor = await runWrite(env.ctx, (tx) => createRecord(tx, thirdPartyKind, admin, { name: n.vendor, type: 'vendor' }));
  const asset = await runWrite(env.ctx, (tx) => createRecord(tx, assetKind, admin, { name: n.asset }));
  await runWrite(env.ctx, (tx) => createRecord(tx, processingActivityKind, admin, {
    name: n.payroll, role: 'controller', status: 'active', legalBasis: 'legal_obligation', purposes: 'Paying salaries',
    systemAssetIds: [asset.id], processorThirdPartyIds: [vendor.id], retention: '10 years',
  }));
  await runWrite(env.ctx, (tx) => createRecord(tx, processingActivityKind, admin, {
    name: n.hosting, role: 'processor', status: 'active', legalBasis: 'contract', purposes: '+SUM(A1)', ownerId: null, ownerGroupId: reader.groupId,
  }));
  await runWrite(env.ctx, (tx) => createRecord(tx, processingActivityKind, admin, { name: n.retired, status: 'retired', legalBasis: 'consent', purposes: 'Newsletter' }));
});

async function session(email: string, password: string) {
  const login = await signIn(env.ctx.db, email, password, '', { sessionHours: 1 });
  const cookie = `${sessionCookieName(env.ctx.config)}=${login.secret}`;
  return (path: string) => env.request(path, { headers: { cookie }, redirect: 'manual' });
}

/** A report's CSV lines: status, type and byte order mark checked (read as bytes: Response.text() drops the mark). */
async function csvLines(res: Response): Promise<string[]> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(res.status, new TextDecoder().decode(bytes.slice(0, 500))).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return new TextDecoder().decode(bytes).split('\r\n').filter((line) => line !== '');
}

const mentioning = (lines: string[], ...names: string[]) => lines.filter((line) => names.some((name) => line.includes(name)));

describe('account review results', () => {
  test('are listed in the Report Center for readers of account reviews, with their printable page, CSV and list', async () => {
    const page = await (await (await session(reader.email, reader.password))('/reports')).text();
    expect(page).toContain('>Account review results</a>');
    expect(page).toContain('href="/reports/accountReviewResults/csv"');
    expect(page).toContain('href="/account-reviews"');
  });

  test('at level own the reader gets the accounts of their own program only, each with its decision, reviewer and day', async () => {
    const lines = await csvLines(await (await session(reader.email, reader.password))('/reports/accountReviewResults/csv'));
    expect(lines[0]).toBe('Program,Program status,Program due,System,Account,Account owner,Decision,Reviewer,Reviewed on,Notes');
    const ours = mentioning(lines, n.mine, n.theirs);
    const name = reader.email.split('@')[0];
    // By program, then system: the CRM account (pending, its formula guarded) before the ERP one (revoked).
    expect(ours).toEqual([
      `${n.mine},Open,2026-06-30,${n.crm},'=cmd|calc,,Pending,,,`,
      `${n.mine},Open,2026-06-30,${n.erp},jdoe,${name},Revoke,${name},${today},Left in May`,
    ]);
  });

  test('the administrator gets every program; the filters narrow the page and the CSV alike', async () => {
    const get = await session(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(mentioning(await csvLines(await get('/reports/accountReviewResults/csv')), n.mine, n.theirs)).toHaveLength(3);
    const revoked = await csvLines(await get(`/reports/accountReviewResults/csv?decision=revoke&reviewedFrom=${today}&reviewedTo=${today}`));
    expect(mentioning(revoked, n.mine, n.theirs).map((l) => l.split(',')[4])).toEqual(['jdoe']);
    const pending = await (await get('/reports/accountReviewResults?decision=pending')).text();
    expect(pending).toContain('root');
    expect(pending).toContain('Filtered by Decision: Pending.');
    expect(pending).not.toContain('>jdoe<');
    expect(mentioning(await csvLines(await get('/reports/accountReviewResults/csv?reviewedTo=2000-01-01')), n.mine, n.theirs)).toEqual([]);
  });

  test('a program the reader may not read is not one of their choices: asking for it is refused, not answered empty', async () => {
    const theirs = (await csvLines(await (await session(ADMIN_EMAIL, ADMIN_PASSWORD))('/reports/accountReviewResults/csv')))
      .find((l) => l.startsWith(n.theirs));
    expect(theirs).toBeDefined();
    const get = await session(reader.email, reader.password);
    const page = await (await get('/reports/accountReviewResults')).text();
    expect(page).toContain(n.mine);
    expect(page).not.toContain(n.theirs);
    const res = await get('/reports/accountReviewResults?programId=00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('is not one of the choices of Program');
    const stranger = await makeUser(env, { 'risks:read': 'all' });
    expect(await refusalOf(env, async () => (await session(stranger.email, stranger.password))('/reports/accountReviewResults/csv')))
      .toEqual(refusedWith(403, undefined, 'user right accountReviews:read missing'));
  });
});

describe('the Article 30 register in the Report Center', () => {
  test('reads as the register does: controllers first, retired left out, a processor the reader may not read "(restricted)", formulas guarded', async () => {
    const lines = await csvLines(await (await session(reader.email, reader.password))('/reports/article30Register/csv'));
    expect(lines[0]).toBe('Processing activity,Role,Status,Purposes,Legal basis (Art. 6),Art. 9 condition,Categories of data subjects,'
      + 'Categories of personal data,Recipients,Retention,Systems,Processors,Joint controllers,Technical and organisational measures,'
      + 'Technical and organisational measures (controls),Owner');
    const ours = mentioning(lines, n.payroll, n.hosting, n.retired);
    expect(ours.map((l) => l.split(',')[0])).toEqual([n.payroll, n.hosting]);
    expect(ours[0]).toContain(`,10 years,${n.asset},(restricted),`);
    expect(ours[0]).not.toContain(n.vendor);
    expect(ours[1]).toContain(`,Processor,Active,'+SUM(A1),Contract,`);
    // The register's own CSV says the same for this reader.
    const own = (await (await session(reader.email, reader.password))('/data-privacy/register.csv')).text();
    expect(mentioning((await own).split('\r\n'), n.payroll, n.hosting)).toEqual(ours);
  });

  test('the administrator sees the processor by name; role, status, legal basis and owner group narrow it', async () => {
    const get = await session(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(mentioning(await csvLines(await get('/reports/article30Register/csv')), n.payroll)[0]).toContain(`,${n.vendor},`);
    expect(mentioning(await csvLines(await get('/reports/article30Register/csv?role=processor')), n.payroll, n.hosting).map((l) => l.split(',')[0])).toEqual([n.hosting]);
    expect(mentioning(await csvLines(await get('/reports/article30Register/csv?legalBasis=legal_obligation&status=active')), n.payroll, n.hosting).map((l) => l.split(',')[0])).toEqual([n.payroll]);
    const grouped = await (await get(`/reports/article30Register?ownerGroupId=${reader.groupId}`)).text();
    expect(grouped).toContain(n.hosting);
    expect(grouped).not.toContain(n.payroll);
    expect((await get('/reports/article30Register?status=retired')).status).toBe(400);
  });

  test('at level own the reader gets only the activities they or their groups own', async () => {
    const own = await makeUser(env, { 'dataPrivacy:read': 'own' });
    await runWrite(env.ctx, (tx) => createRecord(tx, processingActivityKind, admin, { name: `${n.hosting} own`, legalBasis: 'consent', ownerId: own.id }));
    const lines = await csvLines(await (await session(own.email, own.password))('/reports/article30Register/csv'));
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([`${n.hosting} own`]);
  });
});

describe('a report\'s CSV holds every row the reader may read', () => {
  test('5,050 risks: the CSV holds them all; the printable page shows the first 5,000 and says so', async () => {
    const owner = await makeUser(env, { 'risks:read': 'own' });
    const marker = unique('Bulk risk');
    // Set-based, for the volume: 5,050 risks through the service would take minutes; the report only reads them.
    await env.ctx.database.raw(`insert into risks (title, description, classification_id, inherent_likelihood, inherent_impact, owner_id, status, review_frequency_months)
      select $1 || ' ' || lpad(g::text, 5, '0'), '', (select id from risk_classifications order by name limit 1), 1 + g % 5, 1 + g % 5, $2::uuid, 'open', 12
      from generate_series(1, 5050) g`, [marker, owner.id]);
    const get = await session(owner.email, owner.password);
    const lines = await csvLines(await get('/reports/riskRegister/csv'));
    expect(lines).toHaveLength(1 + 5050);
    // In the report's order (by title), each once.
    expect(lines[1].startsWith(`${marker} 00001,`)).toBe(true);
    expect(lines[5050].startsWith(`${marker} 05050,`)).toBe(true);
    expect(new Set(lines).size).toBe(lines.length);
    const page = await (await get('/reports/riskRegister')).text();
    expect(page).toContain('5,050 rows you may read');
    expect(page).toContain('First 5,000 of 5,050 rows; <a href="/reports/riskRegister/csv" download="">download the CSV</a> for all.');
    expect(page).toContain(`${marker} 05000`);
    expect(page).not.toContain(`${marker} 05001`);
  }, 120_000);
});
