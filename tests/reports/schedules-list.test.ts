import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique, type TestUser } from '../helpers/factories';
import { csvOf, inOrder, listScreen } from '../helpers/lists';
import { createSchedule, setSchedulePaused, type ReportScheduleInput } from '../../src/platform/notifications/report-schedules';

/**
 * Reports › Schedules as a list: search (names, reports, recipients), report, frequency and state selects, headers that
 * sort, and Export CSV of exactly the filtered schedules in words (report titles, when, recipients by name).
 */

let env: TestEnv;
let admin: Browser;
let alice: TestUser;
const TAG = unique('Scheduled');
const [alpha, beta, gamma] = ['alpha', 'beta', 'gamma'].map((n) => `${TAG} ${n}`);
const all = [alpha, beta, gamma];

beforeAll(async () => {
  env = await testEnv();
  const actor = await adminActor(env);
  alice = await makeUser(env, { 'risks:read': 'all', 'controls:read': 'all' }, `${TAG.toLowerCase()}-alice`);
  const input = (over: Partial<ReportScheduleInput>): ReportScheduleInput => ({
    name: unique('schedule'), reportKey: 'riskRegister', filters: {}, frequency: 'daily', weekday: null, monthDay: null,
    userIds: [alice.id], groupIds: [], paused: false, ...over,
  });
  await env.ctx.db.transaction(async (tx) => {
    await createSchedule(env.ctx, tx, actor, input({ name: gamma, frequency: 'monthly', monthDay: 1 }));
    const { id } = await createSchedule(env.ctx, tx, actor, input({ name: beta, reportKey: 'controlTestStatus', frequency: 'weekly', weekday: 1 }));
    await setSchedulePaused(tx, actor, id, true);
    await createSchedule(env.ctx, tx, actor, input({ name: alpha }));
  });
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
}, 60_000);

const q = encodeURIComponent(TAG);

describe('Reports › Schedules as a list', () => {
  test('searches names and recipients; filters by report, frequency and state', async () => {
    const found = await listScreen(admin, `/reports/schedules?q=${q}`, 'schedule');
    expect(found.status).toBe(200);
    expect(found.total).toBe('3 scheduled reports match these filters');
    expect(inOrder(found.rows, [gamma, beta, alpha])).toEqual(all);
    expect(found.rows.find((r) => r.includes(alpha))).toContain(`${TAG.toLowerCase()}-alice`);
    const risks = await listScreen(admin, `/reports/schedules?q=${q}&report=riskRegister`, 'schedule');
    expect(inOrder(risks.rows, all)).toEqual([alpha, gamma]);
    expect(risks.html).toContain('<option value="riskRegister" selected>Risk register</option>');
    expect(inOrder((await listScreen(admin, `/reports/schedules?q=${q}&frequency=monthly`, 'schedule')).rows, all)).toEqual([gamma]);
    const paused = await listScreen(admin, `/reports/schedules?q=${q}&state=paused`, 'schedule');
    expect(inOrder(paused.rows, all)).toEqual([beta]);
    expect(paused.rows[0]).toContain('Control test status');
  });

  test('headers sort: by report title, by frequency the other way', async () => {
    expect(inOrder((await listScreen(admin, `/reports/schedules?q=${q}&sort=report`, 'schedule')).rows, all)[0]).toBe(beta);
    const byFrequency = await listScreen(admin, `/reports/schedules?q=${q}&sort=-frequency`, 'schedule');
    expect(inOrder(byFrequency.rows, all)).toEqual([gamma, beta, alpha]);
    expect(byFrequency.html).toContain('<input type="hidden" name="sort" value="-frequency" form="schedule-filters"/>');
  });

  test('Export: the filtered schedules in the list order, in words; the link carries the filters', async () => {
    const screen = await listScreen(admin, `/reports/schedules?q=${q}&report=riskRegister`, 'schedule');
    expect(screen.html).toContain(`href="/reports/schedules/export.csv?q=${q}&report=riskRegister" download="" data-reader-zone=""`);
    const { bom, lines } = await csvOf(admin, `/reports/schedules/export.csv?q=${q}&sort=-name&tz=Asia%2FTokyo`, 'scheduled-reports');
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Name,Report,Filters,When,Recipients,State,Last run (Asia/Tokyo),Last outcome,Skipped now');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([gamma, beta, alpha]);
    expect(lines[2]).toMatch(new RegExp(`^${beta},Control test status,[^,]*,Every Monday [^,]*,${TAG.toLowerCase()}-alice,Paused,,,$`));
  });

  test('the list and its download need settings:read', async () => {
    const other = await makeUser(env, { 'risks:read': 'all' });
    const b = await signedInBrowser(env, other.email, other.password);
    expect((await b.get('/reports/schedules')).status).toBe(403);
    expect((await b.get('/reports/schedules/export.csv')).status).toBe(403);
  });
});
