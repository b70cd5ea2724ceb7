import { beforeAll, describe, expect, test } from 'bun:test';
import { createTreatment } from '../../src/modules/risks/treatments-service';
import { riskHeatMap } from '../../src/modules/risks/dashboard';
import { listRisks } from '../../src/modules/risks/service';
import { dueSoon, daysAfter } from '../../src/platform/dashboard/due-soon';
import { todayIso } from '../../src/platform/core/dates';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeRisk, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf } from '../helpers/refusals';
import { browser } from '../helpers/browser';
import type { Actor } from '../../src/platform/permissions/permissions';

let env: TestEnv;
let admin: Actor;
/** A reader of risks at level own, and the risks of the file: theirs and someone else's. */
let reader: TestUser;
const titles = { mine: '', mineUnrated: '', mineClosed: '', theirs: '' };
const ids = { mine: '', theirs: '' };

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  reader = await makeUser(env, { 'risks:read': 'own' });
  const other = await makeUser(env, { 'risks:read': 'own' });
  titles.mine = unique('Mine rated');
  titles.mineUnrated = unique('Mine unrated');
  titles.mineClosed = unique('Mine closed');
  titles.theirs = unique('Theirs');
  // Likelihood 3 × impact 4 = 12 (High); residual 2 × 3 = 6 (Medium).
  ids.mine = await makeRisk(env, admin, { title: titles.mine, ownerId: reader.id, inherentLikelihood: 3, inherentImpact: 4, residualLikelihood: 2, residualImpact: 3 });
  await makeRisk(env, admin, { title: titles.mineUnrated, ownerId: reader.id, inherentLikelihood: 5, inherentImpact: 5 });
  await makeRisk(env, admin, { title: titles.mineClosed, ownerId: reader.id, inherentLikelihood: 3, inherentImpact: 4, status: 'closed' });
  ids.theirs = await makeRisk(env, admin, { title: titles.theirs, ownerId: other.id, inherentLikelihood: 3, inherentImpact: 4, residualLikelihood: 2, residualImpact: 3 });
});

async function signedIn(email: string, password: string) {
  const session = await signIn(env.ctx.db, email, password, '', { sessionHours: 1 });
  const cookie = `${sessionCookieName(env.ctx.config)}=${session.secret}`;
  return { get: (path: string) => env.request(path, { headers: { cookie }, redirect: 'manual' }) };
}

async function html(res: Response, status = 200): Promise<string> {
  const text = await res.text();
  expect(res.status, text.slice(0, 2000)).toBe(status);
  return text;
}

const cellOf = (map: Awaited<ReturnType<typeof riskHeatMap>>, side: 'inherent' | 'residual', likelihood: number, impact: number) =>
  map[side].find((c) => c.likelihood === likelihood && c.impact === impact)!;

describe('the heat map counts what the viewer may read', () => {
  test('a reader at level own counts their own open risks only, inherent and residual, with the unrated ones apart', async () => {
    const map = await riskHeatMap(env.ctx.db, await reader.actor());
    expect(map.total).toBe(2);
    expect(cellOf(map, 'inherent', 3, 4)).toMatchObject({ count: 1, score: 12, band: { name: 'High' } });
    expect(cellOf(map, 'inherent', 5, 5)).toMatchObject({ count: 1, score: 25, band: { name: 'Critical' } });
    expect(cellOf(map, 'residual', 2, 3)).toMatchObject({ count: 1, score: 6, band: { name: 'Medium' } });
    expect(map.residualUnrated).toBe(1);
    expect(map.inherent.reduce((sum, c) => sum + c.count, 0)).toBe(2);
    expect(map.residual.reduce((sum, c) => sum + c.count, 0)).toBe(1);
    // Rows run from the highest likelihood down, columns from the lowest impact up, as the scale defines them.
    expect(map.likelihood.map((l) => l.value)).toEqual([5, 4, 3, 2, 1]);
    expect(map.impact.map((i) => i.name)).toEqual(['Insignificant', 'Minor', 'Moderate', 'Major', 'Severe']);
    expect(Object.fromEntries(map.bands.map((b) => [b.name, [b.inherent, b.residual]]))).toEqual({ Low: [0, 0], Medium: [0, 1], High: [1, 0], Critical: [1, 0] });
  });

  test('at level all every open risk counts, closed risks never do: each cell is the total of the list it links to', async () => {
    const map = await riskHeatMap(env.ctx.db, admin);
    const listed = (query: Record<string, string | number>) => listRisks(env.ctx.db, admin, { status: 'open', pageSize: 1, ...query }).then((p) => p.total);
    // Other test files of the same process may add risks: the map is checked against the list, and both hold ours.
    expect(cellOf(map, 'inherent', 3, 4).count).toBeGreaterThanOrEqual(2);
    expect(cellOf(map, 'inherent', 3, 4).count).toBe(await listed({ inherentLikelihood: 3, inherentImpact: 4 }));
    expect(cellOf(map, 'residual', 2, 3).count).toBe(await listed({ residualLikelihood: 2, residualImpact: 3 }));
    expect(map.total).toBe(await listed({}));
    for (const band of map.bands) expect(band.inherent).toBe(await listed({ inherentBand: band.name }));
    expect(map.total - map.residualUnrated).toBe(map.bands.reduce((sum, b) => sum + b.residual, 0));
  });
});

describe('the Dashboard at /', () => {
  test('signing in lands on it; the own-level reader sees their counts, cells linking to the filtered list, and no other module', async () => {
    const b = browser(env);
    const signedInNow = await b.post('/sign-in', { email: reader.email, password: reader.password });
    expect(signedInNow.status, await signedInNow.clone().text()).toBe(303);
    expect(signedInNow.headers.get('location')).toBe('/');
    const page = await html(await b.get('/'));
    expect(page).toContain('<h1>Dashboard</h1>');
    expect(page).toContain('Risk heat map');
    expect(page).toContain('Risks by band');
    expect(page).toContain('<caption><strong>Inherent</strong>');
    expect(page).toContain('<caption><strong>Residual</strong>');
    expect(page).toContain('href="/risks?status=open&inherentLikelihood=3&inherentImpact=4"');
    expect(page).toContain('href="/risks?status=open&residualLikelihood=2&residualImpact=3"');
    expect(page).toContain('href="/risks?status=open&inherentBand=Critical"');
    expect(page).toContain('<span class="heat-count">1</span><span class="visually-hidden"> risk at likelihood 3 Possible and impact 4 Major, band High, score 12</span>');
    // Widgets of modules the reader holds no right in are not rendered at all.
    expect(page).not.toContain('Compliance by package');
    expect(page).not.toContain(titles.theirs);
  });

  test('the cell link lists exactly the risks counted in it, as the viewer may read them', async () => {
    const b = await signedIn(reader.email, reader.password);
    const list = await html(await b.get('/risks?status=open&inherentLikelihood=3&inherentImpact=4'));
    expect(list).toContain(titles.mine);
    expect(list).not.toContain(titles.theirs);
    expect(list).not.toContain(titles.mineClosed);
    expect(list).toContain('1 risk matches these filters');
    const everyone = await html(await (await signedIn(ADMIN_EMAIL, ADMIN_PASSWORD)).get('/risks?status=open&inherentLikelihood=3&inherentImpact=4'));
    expect(everyone).toContain(titles.mine);
    expect(everyone).toContain(titles.theirs);
    const band = await html(await b.get('/risks?status=open&inherentBand=Critical'));
    expect(band).toContain(titles.mineUnrated);
    expect(band).not.toContain(titles.mine + '<');
  });

  test('a cell or band that does not exist is refused 400 inside the app shell, on the list and its export', async () => {
    const b = await signedIn(reader.email, reader.password);
    const level = await html(await b.get('/risks?inherentLikelihood=9&inherentImpact=4'), 400);
    expect(level).toContain('class="sidenav"');
    expect(level).toContain('inherentLikelihood: &quot;9&quot; is not a likelihood level of the risk scale');
    const band = await html(await b.get('/risks?residualBand=Unheard'), 400);
    expect(band).toContain('residualBand: &quot;Unheard&quot; is not an appetite band of the risk scale');
    expect(band).toContain('class="sidenav"');
    expect((await b.get('/risks/export.csv?inherentImpact=0')).status).toBe(400);
  });

  test('the REST list takes the same filters and refuses a level that is not on the scale', async () => {
    const token = await makeToken(env, admin, ['risks:read']);
    const res = await env.request('/api/v1/risks?inherentLikelihood=3&inherentImpact=4&residualBand=Medium', bearer(token));
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await res.json() as { data: { rows: { title: string }[] } };
    // Other files' risks may share the cell (one database per test process): this file's rated pair is in, the rest not.
    const listed = body.data.rows.map((r) => r.title);
    expect(listed).toEqual(expect.arrayContaining([titles.mine, titles.theirs]));
    for (const title of [titles.mineUnrated, titles.mineClosed]) expect(listed).not.toContain(title);
    const refused = await refusalOf(env, () => env.request('/api/v1/risks?residualImpact=42', bearer(token)));
    expect(refused).toEqual({ status: 400, error: 'residualImpact: "42" is not an impact level of the risk scale', reasons: [] });
  });

  test('a person with no right the widgets need sees a page that says so, and the menu', async () => {
    const settingsOnly = await makeUser(env, { 'settings:read': 'all' });
    const page = await html(await (await signedIn(settingsOnly.email, settingsOnly.password)).get('/'));
    expect(page).toContain('Your roles show nothing on the dashboard');
    expect(page).not.toContain('Risk heat map');
    expect(page).toContain('href="/settings/risks"');
  });
});

describe('what comes due', () => {
  test('counted per kind at the viewer\'s level: overdue and due in 30 days, naming only records the viewer may read', async () => {
    const today = todayIso();
    // At level all, other files' treatments count too (one database per test process): this test's add 2 overdue, 1 soon.
    const allBefore = (await dueSoon(env.ctx.db, admin, today)).find((r) => r.kind.key === 'riskTreatmentsDue');
    await env.ctx.db.transaction(async (tx) => {
      await createTreatment(tx, admin, ids.mine, { type: 'mitigate', title: 'Mine late', dueOn: daysAfter(today, -3) });
      await createTreatment(tx, admin, ids.mine, { type: 'mitigate', title: 'Mine soon', dueOn: daysAfter(today, 10) });
      await createTreatment(tx, admin, ids.mine, { type: 'mitigate', title: 'Mine later', dueOn: daysAfter(today, 45) });
      await createTreatment(tx, admin, ids.theirs, { type: 'mitigate', title: 'Theirs late', dueOn: daysAfter(today, -1) });
    });
    const rows = await dueSoon(env.ctx.db, await reader.actor(), today);
    // Only the kinds of modules the reader may read: risks (reviews and treatments), and risk exceptions.
    expect(rows.map((r) => r.kind.key)).toEqual(['riskReviewsDue', 'riskTreatmentsDue', 'riskExceptionsExpiring']);
    const treatments = rows.find((r) => r.kind.key === 'riskTreatmentsDue')!;
    expect({ overdue: treatments.overdue, soon: treatments.soon }).toEqual({ overdue: 1, soon: 1 });
    expect(treatments.items.map((i) => i.title)).toEqual([`Mine late (${titles.mine})`, `Mine soon (${titles.mine})`]);

    const all = (await dueSoon(env.ctx.db, admin, today)).find((r) => r.kind.key === 'riskTreatmentsDue')!;
    expect({ overdue: all.overdue - (allBefore?.overdue ?? 0), soon: all.soon - (allBefore?.soon ?? 0) }).toEqual({ overdue: 2, soon: 1 });

    const page = await html(await (await signedIn(reader.email, reader.password)).get('/'));
    expect(page).toContain('Overdue and due in the next 30 days');
    expect(page).toContain('Mine late');
    expect(page).not.toContain('Theirs late');
    expect(page).not.toContain('Control tests');
  });
});
