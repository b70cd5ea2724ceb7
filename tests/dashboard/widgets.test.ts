import { beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv/parse';
import { createRecord } from '../../src/platform/records/records';
import { assetKind } from '../../src/modules/assets/service';
import { businessUnitKind } from '../../src/modules/businessUnits/service';
import { controlKind } from '../../src/modules/controls/service';
import { getRisk } from '../../src/modules/risks/service';
import { dueSoon } from '../../src/platform/dashboard/due-soon';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, bearer, classificationId, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';
import type { Actor } from '../../src/platform/permissions/permissions';

let env: TestEnv;
let admin: Actor;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
});

async function html(res: Response, status = 200): Promise<string> {
  const text = await res.text();
  expect(res.status, text.slice(0, 2000)).toBe(status);
  return text;
}

describe('compliance by package on the Dashboard', () => {
  test('a bar per package with its score in words, linking to the package; shown only to readers of compliance', async () => {
    const token = await makeToken(env, admin, ['compliance:read', 'compliance:create', 'compliance:update']);
    const name = unique('Dashboard framework');
    const created = await env.request('/api/v1/compliance/packages', bearer(token, {
      method: 'POST',
      body: JSON.stringify({ name, standard: 'TEST', version: '1', items: [{ code: 'R1', name: 'First' }, { code: 'R2', name: 'Second' }, { code: 'R3', name: 'Third' }, { code: 'R4', name: 'Fourth' }] }),
    }));
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    const analyses = ((await (await env.request(`/api/v1/compliance/analyses?packageId=${id}&pageSize=200`, bearer(token))).json()) as {
      data: { rows: { id: string; item: { code: string } }[] };
    }).data.rows;
    for (const [code, status] of [['R1', 'compliant'], ['R2', 'non_compliant'], ['R3', 'not_applicable']]) {
      const analysis = analyses.find((a) => a.item.code === code)!;
      const patched = await env.request(`/api/v1/compliance/analyses/${analysis.id}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ status }) }));
      expect(patched.status, await patched.clone().text()).toBe(200);
    }
    const page = await html(await (await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD)).get('/'));
    expect(page).toContain('Compliance by package');
    expect(page).toContain(`<a href="/compliance/packages/${id}">${name}</a>`);
    // R3 is not applicable: 1 compliant of 3 applicable, R4 not assessed counting against it.
    expect(page).toContain('33.3% compliant: 1 of 3 applicable requirements, 1 not assessed');

    const riskReader = await makeUser(env, { 'risks:read': 'all' });
    const theirs = await html(await (await signedInBrowser(env, riskReader.email, riskReader.password)).get('/'));
    expect(theirs).not.toContain('Compliance by package');
    expect(theirs).not.toContain(name);
  });
});

describe('control tests coming due', () => {
  test('a scheduled control never tested is due today, counted for its owner at level own and not for another', async () => {
    const owner = await makeUser(env, { 'controls:read': 'own' });
    const stranger = await makeUser(env, { 'controls:read': 'own' });
    const name = unique('Scheduled control');
    await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name, ownerId: owner.id, testFrequencyMonths: 3 }));
    const mine = (await dueSoon(env.ctx.db, await owner.actor())).find((r) => r.kind.key === 'controlTestsDue')!;
    expect({ overdue: mine.overdue, soon: mine.soon, titles: mine.items.map((i) => i.title) }).toEqual({ overdue: 0, soon: 1, titles: [name] });
    const theirs = (await dueSoon(env.ctx.db, await stranger.actor())).find((r) => r.kind.key === 'controlTestsDue')!;
    expect({ overdue: theirs.overdue, soon: theirs.soon, items: theirs.items }).toEqual({ overdue: 0, soon: 0, items: [] });
  });
});

describe('the risk register export and form', () => {
  test('the CSV export has residual likelihood, impact, score and band (and the inherent ones) as columns of their own', async () => {
    const title = unique('Exported risk');
    await makeRisk(env, admin, { title, inherentLikelihood: 4, inherentImpact: 4, residualLikelihood: 2, residualImpact: 3 });
    const res = await (await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD)).get(`/risks/export.csv?q=${encodeURIComponent(title)}`);
    expect(res.status).toBe(200);
    const { header, rows } = parseCsv(await res.text());
    expect(rows).toHaveLength(1);
    const row = rows[0].cells;
    expect(header).toEqual([
      'Title', 'Classification', 'Inherent likelihood', 'Inherent impact', 'Inherent score', 'Inherent band',
      'Residual likelihood', 'Residual impact', 'Residual score', 'Residual band', 'Owner', 'Owner group', 'Status', 'Review every (months)', 'Updated',
    ]);
    const cell = (column: string) => row[header.indexOf(column)];
    expect([cell('Inherent likelihood'), cell('Inherent impact'), cell('Inherent score'), cell('Inherent band')]).toEqual(['4 – Likely', '4 – Major', '16', 'High']);
    expect([cell('Residual likelihood'), cell('Residual impact'), cell('Residual score'), cell('Residual band')]).toEqual(['2 – Unlikely', '3 – Moderate', '6', 'Medium']);
  });

  test('the form sets and clears the asset and the business unit, as the import can; the record page names them', async () => {
    const assetName = unique('Server room');
    const unitName = unique('Finance');
    const asset = await env.ctx.db.transaction((tx) => createRecord(tx, assetKind, admin, { name: assetName }));
    const unit = await env.ctx.db.transaction((tx) => createRecord(tx, businessUnitKind, admin, { name: unitName }));
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const form = await html(await b.get('/risks/new'));
    expect(form).toContain('name="assetId"');
    expect(form).toContain('name="businessUnitId"');
    expect(form).toContain(assetName);
    const title = unique('Formed risk');
    const created = await b.post('/risks', {
      title, classificationId: await classificationId(env), inherentLikelihood: '3', inherentImpact: '3', assetId: asset.id, businessUnitId: unit.id,
    });
    expect(created.status, await created.clone().text()).toBe(303);
    const id = created.headers.get('location')!.split('/')[2].split('?')[0];
    expect(await getRisk(env.ctx.db, admin, id)).toMatchObject({ assetId: asset.id, businessUnitId: unit.id });
    const page = await html(await b.get(`/risks/${id}`));
    expect(page).toContain(assetName);
    expect(page).toContain(unitName);

    const edit = await html(await b.get(`/risks/${id}/edit`));
    expect(edit).toContain(`<option value="${asset.id}" selected`);
    const cleared = await b.post(`/risks/${id}`, {
      title, classificationId: await classificationId(env), inherentLikelihood: '3', inherentImpact: '3', assetId: '', businessUnitId: unit.id, reviewFrequencyMonths: '12', status: 'open',
    });
    expect(cleared.status, await cleared.clone().text()).toBe(303);
    expect(await getRisk(env.ctx.db, admin, id)).toMatchObject({ assetId: null, businessUnitId: unit.id });
  });
});
