import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique, type TestUser } from '../helpers/factories';
import { csvOf, inOrder, listScreen } from '../helpers/lists';
import { createRule, type NotificationRuleInput } from '../../src/platform/notifications/rules';

/**
 * The rules of Settings › Notifications as a list: search (names, events, records, recipients), event, records and state
 * selects, headers that sort, and Export CSV of exactly the filtered rules, in words (event labels, record types by
 * name, recipients by name).
 */

let env: TestEnv;
let admin: Browser;
let alice: TestUser;
const TAG = unique('Ruled');
const [alpha, beta, gamma] = ['alpha', 'beta', 'gamma'].map((n) => `${TAG} ${n}`);
const rule = (over: Partial<NotificationRuleInput>): NotificationRuleInput => ({
  name: unique('rule'), recordType: 'risk', event: 'changed', field: null, value: null, notifyOwner: false, notifyOwnerGroup: false,
  userIds: [], groupIds: [], addresses: [], enabled: true, ...over,
});

beforeAll(async () => {
  env = await testEnv();
  const actor = await adminActor(env);
  alice = await makeUser(env, { 'risks:read': 'all' }, `${TAG.toLowerCase()}-alice`);
  await env.ctx.db.transaction(async (tx) => {
    await createRule(tx, actor, rule({ name: gamma, event: 'created', userIds: [alice.id] }));
    await createRule(tx, actor, rule({ name: alpha, recordType: 'riskTreatment', event: 'deleted', notifyOwnerGroup: true, enabled: false }));
    await createRule(tx, actor, rule({ name: beta, event: 'changed', notifyOwner: true }));
  });
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
}, 60_000);

const q = encodeURIComponent(TAG);
const all = [alpha, beta, gamma];

describe('Settings › Notifications: the rules as a list', () => {
  test('searches names and recipients; filters by event, by records and by state', async () => {
    const found = await listScreen(admin, `/settings/notifications?q=${q}`, 'rule');
    expect(found.status).toBe(200);
    expect(found.total).toBe('3 rules match these filters');
    expect(inOrder(found.rows, [gamma, beta, alpha])).toEqual(all);
    // Recipients by name: the search finds a rule by the person it mails.
    expect(inOrder((await listScreen(admin, `/settings/notifications?q=${encodeURIComponent(`${TAG.toLowerCase()}-alice`)}`, 'rule')).rows, all)).toEqual([gamma]);
    const created = await listScreen(admin, `/settings/notifications?q=${q}&event=created`, 'rule');
    expect(inOrder(created.rows, all)).toEqual([gamma]);
    expect(created.html).toContain('<option value="created" selected>Created</option>');
    const treatments = await listScreen(admin, `/settings/notifications?q=${q}&recordType=riskTreatment`, 'rule');
    expect(inOrder(treatments.rows, all)).toEqual([alpha]);
    const off = await listScreen(admin, `/settings/notifications?q=${q}&state=off`, 'rule');
    expect(inOrder(off.rows, all)).toEqual([alpha]);
    expect(off.rows[0]).toContain('Off');
  });

  test('headers sort: by name the other way, by state (on first)', async () => {
    const descending = await listScreen(admin, `/settings/notifications?q=${q}&sort=-name`, 'rule');
    expect(inOrder(descending.rows, all)).toEqual([gamma, beta, alpha]);
    expect(descending.html).toContain(`<a href="/settings/notifications?q=${q}&sort=name" class="sort"`);
    expect(inOrder((await listScreen(admin, `/settings/notifications?q=${q}&sort=state`, 'rule')).rows, all)).toEqual([beta, gamma, alpha]);
  });

  test('Export: the filtered rules in the list order, in words; the link carries the filters', async () => {
    const screen = await listScreen(admin, `/settings/notifications?q=${q}&state=on`, 'rule');
    expect(screen.html).toContain(`href="/settings/notifications/rules/export.csv?q=${q}&state=on" download="" data-reader-zone=""`);
    const { bom, lines } = await csvOf(admin, `/settings/notifications/rules/export.csv?q=${q}&state=on&sort=-name`, 'notification-rules');
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Rule,When,Records,Mails,State,Skipped while deactivated');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${gamma},Created,Risks › [^,]+,${TAG.toLowerCase()}-alice,On,$`));
    expect(lines[2]).toMatch(new RegExp(`^${beta},[^,]+,Risks › [^,]+,owner,On,$`));
  });

  test('the rules and their download need settings:read', async () => {
    const other = await makeUser(env, { 'risks:read': 'all' });
    const b = await signedInBrowser(env, other.email, other.password);
    expect((await b.get('/settings/notifications/rules/export.csv')).status).toBe(403);
  });
});
