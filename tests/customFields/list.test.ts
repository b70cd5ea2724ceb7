import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { csvOf, inOrder, listScreen } from '../helpers/lists';
import { createCustomField, deleteCustomField } from '../../src/modules/customFields/service';

/**
 * Settings › Custom fields as one list: search over labels, keys and options; module and type selects; headers that
 * sort; Export CSV of exactly the filtered definitions with modules and types in words.
 */

let env: TestEnv;
let reader: Browser;
const made: string[] = [];
const TAG = unique('Fielded');
const key = (n: string) => `${n}_${TAG.replace(/[^a-z0-9]/gi, '').toLowerCase()}`;
const labels = { appetite: `${TAG} appetite`, budget: `${TAG} budget`, channel: `${TAG} channel` };

beforeAll(async () => {
  env = await testEnv();
  const actor = await adminActor(env);
  await env.ctx.db.transaction(async (tx) => {
    made.push((await createCustomField(tx, actor, { module: 'risks', key: key('appetite'), label: labels.appetite, type: 'singleSelect', options: ['Low', 'High'] })).id);
    made.push((await createCustomField(tx, actor, { module: 'controls', key: key('budget'), label: labels.budget, type: 'number', required: true })).id);
    made.push((await createCustomField(tx, actor, { module: 'risks', key: key('channel'), label: labels.channel, type: 'text' })).id);
  });
  const user = await makeUser(env, { 'customFields:read': 'all' });
  reader = await signedInBrowser(env, user.email, user.password);
}, 60_000);

// A required field on controls would refuse every control other test files of this process create without it.
afterAll(async () => {
  const actor = await adminActor(env);
  await env.ctx.db.transaction(async (tx) => {
    for (const id of made) await deleteCustomField(tx, actor, id, { confirm: true });
  });
});

const q = encodeURIComponent(TAG);
const all = Object.values(labels);

describe('Settings › Custom fields as a list', () => {
  test('searches labels, keys and options; filters by module and by type', async () => {
    const found = await listScreen(reader, `/settings/custom-fields?q=${q}`, 'custom-field');
    expect(found.status).toBe(200);
    expect(found.total).toBe('3 custom fields match these filters');
    expect((await listScreen(reader, `/settings/custom-fields?q=${key('budget')}`, 'custom-field')).rows).toHaveLength(1);
    const risks = await listScreen(reader, `/settings/custom-fields?q=${q}&module=risks`, 'custom-field');
    expect(inOrder(risks.rows, all).sort()).toEqual([labels.appetite, labels.channel]);
    expect(risks.rows[0]).toStartWith('Risks ');
    const numbers = await listScreen(reader, `/settings/custom-fields?q=${q}&type=number`, 'custom-field');
    expect(inOrder(numbers.rows, all)).toEqual([labels.budget]);
    // Types read as words.
    expect(numbers.rows[0]).toContain(' Number ');
    expect(numbers.html).toContain('<option value="number" selected>Number</option>');
  });

  test('headers sort: by label, by type the other way', async () => {
    expect(inOrder((await listScreen(reader, `/settings/custom-fields?q=${q}&sort=label`, 'custom-field')).rows, all)).toEqual(all);
    const byType = await listScreen(reader, `/settings/custom-fields?q=${q}&sort=-type`, 'custom-field');
    // Text, Single select, Number: by their words, descending.
    expect(inOrder(byType.rows, all)).toEqual([labels.channel, labels.appetite, labels.budget]);
    expect(byType.html).toContain('aria-sort="descending"');
  });

  test('Export: the filtered definitions in the list order, modules and types in words; the link carries the filters', async () => {
    const screen = await listScreen(reader, `/settings/custom-fields?q=${q}&module=risks&sort=label`, 'custom-field');
    expect(screen.html).toContain(`href="/settings/custom-fields/export.csv?q=${q}&module=risks&sort=label" download="" data-reader-zone=""`);
    const { bom, lines } = await csvOf(reader, `/settings/custom-fields/export.csv?q=${q}&module=risks&sort=label`, 'custom-fields');
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Module,Label,Key,Type,Options,Required,Position,Records with a value');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 6).join(','))).toEqual([
      `Risks,${labels.appetite},${key('appetite')},Single select,"Low; High",No`, `Risks,${labels.channel},${key('channel')},Text,,No`,
    ]);
    expect((await csvOf(reader, `/settings/custom-fields/export.csv?q=${q}&type=number`, 'custom-fields')).lines[1]).toStartWith(`Controls,${labels.budget},${key('budget')},Number,,Yes,`);
  });

  test('the list and its download need customFields:read', async () => {
    const other = await makeUser(env, { 'risks:read': 'all' });
    const b = await signedInBrowser(env, other.email, other.password);
    expect((await b.get('/settings/custom-fields')).status).toBe(403);
    expect((await b.get('/settings/custom-fields/export.csv')).status).toBe(403);
  });
});
