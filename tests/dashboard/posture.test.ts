import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems } from '../../db/schema';
import { updateAnalysis } from '../../src/modules/compliance/analyses-service';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { packageScoreAt, packageScoresAt } from '../../src/modules/compliance/posture';
import { riskBandsAt } from '../../src/modules/risks/posture';
import { deleteRisk, updateRisk } from '../../src/modules/risks/service';
import { monthEnds, readAsOf } from '../../src/platform/dashboard/posture';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import { systemActor, type Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, type TestUser } from '../helpers/factories';

// Posture at a past date is computed from History. The past is written through the services by the system actor at
// chosen times (as the demo loader does), in ascending time, in a service of its own so "the first entry" is known.
let env: TestEnv;
let admin: Actor;
let reader: TestUser;
const ids = { mine: '', other: '', gone: '', packageId: '', R1: '', R2: '', R3: '' };
const at = (time: string): Actor => ({ ...systemActor('loader'), writtenAt: new Date(time) });

beforeAll(async () => {
  env = await startTestEnv();
  admin = await adminActor(env);
  reader = await makeUser(env, { 'risks:read': 'own', 'compliance:read': 'own' });
  const write = <T>(fn: (tx: Parameters<Parameters<typeof env.ctx.db.transaction>[0]>[0]) => Promise<T>) => env.ctx.db.transaction(fn);

  // 10 January: three risks. Likelihood 3 × impact 4 = 12 (High); 5 × 5 = 25 (Critical); 1 × 1 = 1 (Low).
  ids.mine = await makeRisk(env, at('2026-01-10T09:00:00Z'), { title: 'Supplier outage', ownerId: reader.id, inherentLikelihood: 3, inherentImpact: 4 });
  ids.other = await makeRisk(env, at('2026-01-10T10:00:00Z'), { title: 'Data centre fire', inherentLikelihood: 5, inherentImpact: 5 });
  ids.gone = await makeRisk(env, at('2026-01-10T11:00:00Z'), { title: 'Printer jam', inherentLikelihood: 1, inherentImpact: 1 });
  // 1 February: a package of three requirements (and a heading, never counted) is imported.
  ids.packageId = (await write((tx) => importPackage(tx, at('2026-02-01T08:00:00Z'), {
    name: 'Posture framework',
    items: [{ code: 'H', name: 'Heading', kind: 'heading' }, { code: 'R1', name: 'Access reviews' }, { code: 'R2', name: 'Backups' }, { code: 'R3', name: 'Logging' }],
  }))).id;
  const analyses = await env.ctx.db.select({ code: complianceItems.code, id: complianceAnalyses.id }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceAnalyses.packageId, ids.packageId));
  for (const a of analyses) ids[a.code as 'R1' | 'R2' | 'R3'] = a.id;

  await write((tx) => updateAnalysis(tx, at('2026-03-01T12:00:00Z'), ids.R1, { status: 'compliant' }));
  // 5 March: the supplier outage gets a residual rating of 2 × 3 = 6 (Medium).
  await write((tx) => updateRisk(tx, at('2026-03-05T12:00:00Z'), ids.mine, { residualLikelihood: 2, residualImpact: 3 }));
  await write((tx) => updateAnalysis(tx, at('2026-04-01T08:00:00Z'), ids.R3, { status: 'compliant' }));
  // Later the same day R3 falls back to partially compliant: the day's end counts the later value.
  await write((tx) => updateAnalysis(tx, at('2026-04-01T17:00:00Z'), ids.R3, { status: 'partially_compliant' }));
  await write((tx) => updateAnalysis(tx, at('2026-04-01T18:00:00Z'), ids.R2, { notes: 'A note changes no status' }));
  // 20 May: the data centre fire is closed; 21 May: the printer jam is deleted.
  await write((tx) => updateRisk(tx, at('2026-05-20T12:00:00Z'), ids.other, { status: 'closed' }));
  await write((tx) => deleteRisk(tx, at('2026-05-21T12:00:00Z'), ids.gone));
  await write((tx) => updateAnalysis(tx, at('2026-06-01T12:00:00Z'), ids.R1, { status: 'not_applicable' }));
}, 120_000);

afterAll(async () => {
  await env.ctx.close();
});

const bands = (counts: { band: string; inherent: number; residual: number }[]) => Object.fromEntries(counts.map((c) => [c.band, [c.inherent, c.residual]]));

describe('open risks per band as they stood at a past date', () => {
  test('each day reads the changes made up to its end: created, rated, closed, deleted', async () => {
    const days = ['2026-01-09', '2026-01-10', '2026-03-04', '2026-03-05', '2026-05-20', '2026-05-21'];
    const [before, created, unrated, rated, closed, deleted] = (await riskBandsAt(env.ctx.db, admin, days)).map(bands);
    expect(before).toEqual({ Low: [0, 0], Medium: [0, 0], High: [0, 0], Critical: [0, 0] });
    expect(created).toEqual({ Low: [1, 0], Medium: [0, 0], High: [1, 0], Critical: [1, 0] });
    expect(unrated).toEqual(created);
    expect(rated).toEqual({ Low: [1, 0], Medium: [0, 1], High: [1, 0], Critical: [1, 0] });
    expect(closed).toEqual({ Low: [1, 0], Medium: [0, 1], High: [1, 0], Critical: [0, 0] });
    expect(deleted).toEqual({ Low: [0, 0], Medium: [0, 1], High: [1, 0], Critical: [0, 0] });
    // Days asked out of order are answered in the order asked.
    expect((await riskBandsAt(env.ctx.db, admin, ['2026-05-21', '2026-01-10'])).map(bands)).toEqual([deleted, created]);
  });

  test('a reader at level own counts only the risks they own', async () => {
    const [day] = await riskBandsAt(env.ctx.db, await reader.actor(), ['2026-03-05']);
    expect(bands(day)).toEqual({ Low: [0, 0], Medium: [0, 1], High: [1, 0], Critical: [0, 0] });
  });

  test('today\'s posture read from History matches the risks as they are', async () => {
    const [today] = await riskBandsAt(env.ctx.db, admin, [new Date().toISOString().slice(0, 10)]);
    expect(bands(today)).toEqual({ Low: [0, 0], Medium: [0, 1], High: [1, 0], Critical: [0, 0] });
  });

  // The counts come from what the database derives as History is written (migration 0050), rebuilt per risk from its
  // whole History: an entry written later with an earlier time (a loader's past) must land at its time, for the day
  // sums read at level all and the spans read at level own alike.
  test('a change written after later ones, with an earlier time, counts from its own time', async () => {
    const late = await makeRisk(env, at('2026-07-01T09:00:00Z'), { title: 'Late rating', ownerId: reader.id, inherentLikelihood: 1, inherentImpact: 1 });
    await env.ctx.db.transaction((tx) => updateRisk(tx, at('2026-07-20T09:00:00Z'), late, { status: 'closed' }));
    // Written now, dated between the two: the risk was open and got a residual rating of 1 × 1 (Low) on 10 July.
    await env.ctx.db.transaction((tx) => updateRisk(tx, at('2026-07-10T09:00:00Z'), late, { residualLikelihood: 1, residualImpact: 1 }));
    const days = ['2026-06-30', '2026-07-05', '2026-07-15', '2026-07-20'];
    // Both readers see the same before: the supplier outage (the reader's) is the only other risk open in June.
    const mine = { Low: [0, 0], Medium: [0, 1], High: [1, 0], Critical: [0, 0] };
    for (const viewer of [admin, await reader.actor()]) {
      const [before, open, rated, closed] = (await riskBandsAt(env.ctx.db, viewer, days)).map(bands);
      expect(before).toEqual(mine);
      expect(open).toEqual({ ...mine, Low: [1, 0] });
      expect(rated).toEqual({ ...mine, Low: [1, 1] });
      expect(closed).toEqual(mine);
    }
  });
});

describe('a package\'s compliance score as it stood at a past date', () => {
  test('statuses changed on known dates read back day by day; headings and notes change nothing', async () => {
    const days = ['2026-01-31', '2026-02-01', '2026-03-01', '2026-04-01', '2026-06-01'];
    const scores = (await packageScoresAt(env.ctx.db, admin, [ids.packageId], days)).map((m) => m.get(ids.packageId)!.requirements);
    expect(scores[0]).toMatchObject({ total: 0, applicable: 0, percentCompliant: null });
    expect(scores[1]).toMatchObject({ total: 3, not_assessed: 3, compliant: 0, percentCompliant: 0 });
    expect(scores[2]).toMatchObject({ total: 3, compliant: 1, not_assessed: 2, percentCompliant: 33.3 });
    expect(scores[3]).toMatchObject({ total: 3, compliant: 1, partially_compliant: 1, not_assessed: 1, percentCompliant: 33.3 });
    expect(scores[4]).toMatchObject({ total: 3, compliant: 0, not_applicable: 1, applicable: 2, partially_compliant: 1, percentCompliant: 0 });
  });

  test('one package\'s score at a day, with the rule of its page', async () => {
    expect((await packageScoreAt(env.ctx.db, admin, ids.packageId, '2026-03-01')).requirements).toMatchObject({ compliant: 1, applicable: 3 });
  });
});

describe('the "as of" date', () => {
  const first = new Date('2026-01-10T09:00:00Z');
  test('blank is today; a real day between the first entry and today is taken', () => {
    expect(readAsOf('', first, '2026-11-27')).toEqual({ day: null });
    expect(readAsOf('2026-01-10', first, '2026-11-27')).toEqual({ day: '2026-01-10' });
    expect(readAsOf('2026-11-27', first, '2026-11-27')).toEqual({ day: '2026-11-27' });
  });
  test('a day to come, a day before History starts, and no date at all are refused in words', () => {
    expect(readAsOf('2026-11-28', first, '2026-11-27')).toEqual({ typed: '2026-11-28', problem: 'The date must not be after today (2026-11-27): the posture of a day to come is not known yet.' });
    expect(readAsOf('2026-01-09', first, '2026-11-27')).toEqual({ typed: '2026-01-09', problem: 'History starts on 2026-01-10: choose that day or a later one.' });
    expect(readAsOf('2026-02-30', first, '2026-11-27')).toMatchObject({ problem: 'Enter a real date, such as 2026-03-31.' });
    expect(readAsOf('2026-01-10', null, '2026-11-27')).toMatchObject({ problem: 'Nothing has been recorded yet, so there is no past posture to show.' });
  });
  test('the trend\'s days: the end of each of the eleven months before, then the day itself', () => {
    expect(monthEnds('2026-03-15')).toEqual([
      '2025-04-30', '2025-05-31', '2025-06-30', '2025-07-31', '2025-08-31', '2025-09-30', '2025-10-31', '2025-11-30', '2025-12-31',
      '2026-01-31', '2026-02-28', '2026-03-15',
    ]);
  });
});

describe('the screens', () => {
  async function signedIn(email: string, password: string) {
    const session = await signIn(env.ctx.db, email, password, '', { sessionHours: 1 });
    const cookie = `${sessionCookieName(env.ctx.config)}=${session.secret}`;
    return async (path: string, status: number) => {
      const res = await env.request(path, { headers: { cookie }, redirect: 'manual' });
      const text = await res.text();
      expect(res.status, text.slice(0, 1500)).toBe(status);
      return text;
    };
  }

  test('the dashboard as of a day shows that day\'s posture and the twelve months to it', async () => {
    const get = await signedIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await get('/?asOf=2026-03-05', 200);
    expect(page).toContain('Open risks by band on 2026-03-05');
    expect(page).toContain('1 open risk in Medium (residual)');
    expect(page).toContain('1 open risk in Critical (inherent)');
    expect(page).toContain('33.3% compliant: 1 of 3 applicable requirements, 2 not assessed');
    expect(page).toContain('The twelve months to 2026-03-05');
    expect(page).toContain('href="/?asOf=2026-02-28"');
  });

  test('a day to come or before History starts is refused inside the app, the date kept', async () => {
    const get = await signedIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    const future = await get('/?asOf=2999-01-01', 400);
    expect(future).toContain('The date must not be after today');
    expect(future).toContain('value="2999-01-01"');
    expect(future).toContain('<nav');
    expect(await get('/?asOf=2025-12-31', 400)).toContain('History starts on 2026-01-10: choose that day or a later one.');
  });

  test('the package page shows the score as of a day; before its import is refused', async () => {
    const get = await signedIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await get(`/compliance/packages/${ids.packageId}?asOf=2026-04-01`, 200);
    expect(page).toContain('Score as it stood at the end of 2026-04-01 (UTC)');
    expect(await get(`/compliance/packages/${ids.packageId}?asOf=2026-01-31`, 400)).toContain('History starts on 2026-02-01: choose that day or a later one.');
  });

  test('the trend page: twelve rows of month ends to today', async () => {
    const get = await signedIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await get('/dashboard/trend', 200);
    expect(page).toContain('Open risks by band');
    expect(page.match(/href="\/\?asOf=/g)?.length).toBe(24);
  });
});
