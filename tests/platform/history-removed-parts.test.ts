import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { complianceAnalyses } from '../../db/schema';
import { linkRecord, unlinkRecord } from '../../src/modules/compliance/analyses-service';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { controlKind } from '../../src/modules/controls/service';
import { riskParent } from '../../src/modules/exceptions/parents';
import { createException, deleteException } from '../../src/modules/exceptions/service';
import { createTreatment, deleteTreatment } from '../../src/modules/risks/treatments-service';
import type { Actor } from '../../src/platform/permissions/permissions';
import { describeHistory, historyWithParts, type ShownEntry } from '../../src/platform/records/history-format';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';

/**
 * A part removed from a record (a risk's treatment or exception) stays in the record's History, and a mapping made
 * from a requirement's side shows in the mapped control's History.
 */

let env: TestEnv;
let admin: Actor;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
});

const shown = async (viewer: Actor, kind: string, id: string): Promise<ShownEntry[]> =>
  describeHistory(env.ctx.db, viewer, await historyWithParts(env.ctx.db, kind, id), { own: { recordType: kind, recordId: id } });
const line = (e: ShownEntry) => `${e.actionLabel} | ${e.record ? `${e.record.label}: ${e.record.title}` : 'this record'}`;

describe('removed parts in their parent\'s History', () => {
  test('a deleted treatment keeps its entries in the risk\'s History, named by its title, also for a reader at level own', async () => {
    const reader = await makeUser(env, { 'risks:read': 'own' });
    const riskId = await makeRisk(env, admin, { ownerId: reader.id });
    const title = unique('Encrypt laptops');
    const { id } = await env.ctx.db.transaction((tx) => createTreatment(tx, admin, riskId, { type: 'accept', title, description: '', controlIds: [] }));
    await env.ctx.db.transaction((tx) => deleteTreatment(tx, admin, riskId, id));

    const entries = await shown(admin, 'risk', riskId);
    // Named as removed, not linked: its page is gone.
    expect(entries.map(line)).toEqual(expect.arrayContaining([`Deleted | Risk treatment: ${title} (deleted)`, `Created | Risk treatment: ${title} (deleted)`]));
    expect(entries.filter((e) => e.record).every((e) => e.record!.href === null)).toBe(true);
    const ownReader = await shown(await reader.actor(), 'risk', riskId);
    const deleted = ownReader.find((e) => e.action === 'delete')!;
    expect(deleted).toMatchObject({ hidden: false, record: { title: `${title} (deleted)`, href: null } });
    expect(deleted.changes.map((c) => c.label)).toContain('Title');
  });

  test('a treatment still there is linked from the risk\'s History to its own page', async () => {
    const riskId = await makeRisk(env, admin);
    const title = unique('Patch servers');
    const { id } = await env.ctx.db.transaction((tx) => createTreatment(tx, admin, riskId, { type: 'accept', title, description: '', controlIds: [] }));
    const created = (await shown(admin, 'risk', riskId)).find((e) => e.record?.label === 'Risk treatment')!;
    expect(created.record).toEqual({ label: 'Risk treatment', title, href: `/risks/${riskId}/treatments/${id}`, readable: true });
  });

  test('a risk\'s exceptions, there or removed, are read with the risk by its owner at level own, whoever owns them', async () => {
    const reader = await makeUser(env, { 'risks:read': 'own' });
    const riskId = await makeRisk(env, admin, { ownerId: reader.id });
    const make = (title: string) => env.ctx.db.transaction((tx) =>
      createException(tx, riskParent, admin, { parentId: riskId, title, description: 'End of life', expiresAt: '2099-01-01', ownerId: admin.userId }));
    const [kept, removed] = [unique('Old switch'), unique('Old router')];
    const live = await make(kept);
    const gone = await make(removed);
    await env.ctx.db.transaction((tx) => deleteException(tx, riskParent, admin, gone.id));

    const entries = await shown(await reader.actor(), 'risk', riskId);
    const parts = entries.filter((e) => e.record);
    expect(parts.every((e) => !e.hidden && e.changes.length > 0), JSON.stringify(parts)).toBe(true);
    expect(parts.map((e) => e.record!.title)).not.toContain('(restricted)');
    const named = (id: string) => parts.filter((e) => e.record!.title.startsWith(id === live.id ? kept : removed)).map((e) => e.record);
    expect(named(live.id)).toEqual([{ label: 'Risk exception', title: kept, href: `/risks/exceptions/${live.id}`, readable: true }]);
    expect(named(gone.id)).toEqual([
      { label: 'Risk exception', title: `${removed} (deleted)`, href: null, readable: true },
      { label: 'Risk exception', title: `${removed} (deleted)`, href: null, readable: true },
    ]);
    // Elsewhere (the Audit Log) the exception's own owner still decides: the reader owns neither exception.
    const outside = await describeHistory(env.ctx.db, await reader.actor(), await historyWithParts(env.ctx.db, 'risk', riskId));
    expect(outside.filter((e) => e.record && e.record.label === 'Risk exception').every((e) => e.hidden)).toBe(true);
  });

  test('a deleted exception stays in the risk\'s History; another risk\'s removed parts do not', async () => {
    const riskId = await makeRisk(env, admin);
    const otherRisk = await makeRisk(env, admin);
    const title = unique('Legacy VPN');
    const make = (parentId: string, t: string) => env.ctx.db.transaction((tx) =>
      createException(tx, riskParent, admin, { parentId, title: t, description: 'End of life', expiresAt: '2099-01-01' }));
    const { id } = await make(riskId, title);
    const other = await make(otherRisk, unique('Not this one'));
    await env.ctx.db.transaction((tx) => deleteException(tx, riskParent, admin, id));
    await env.ctx.db.transaction((tx) => deleteException(tx, riskParent, admin, other.id));

    const entries = await shown(admin, 'risk', riskId);
    expect(entries.filter((e) => e.action === 'delete').map(line)).toEqual([`Deleted | Risk exception: ${title} (deleted)`]);
  });

  test('the risk page shows "Deleted" with the treatment\'s name', async () => {
    const riskId = await makeRisk(env, admin);
    const title = unique('Buy insurance');
    const { id } = await env.ctx.db.transaction((tx) => createTreatment(tx, admin, riskId, { type: 'transfer', title, description: '', controlIds: [] }));
    await env.ctx.db.transaction((tx) => deleteTreatment(tx, admin, riskId, id));
    const page = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = await (await page.get(`/risks/${riskId}`)).text();
    const history = html.slice(html.indexOf('id="record-history"'));
    expect(history).toContain('Deleted');
    expect(history).toContain(title);
  });
});

describe('an exception\'s History names what it is an exception to', () => {
  test('the parent type by its label and the risk by its title, linked to its page', async () => {
    const riskTitle = unique('Legacy ERP');
    const riskId = await makeRisk(env, admin, { title: riskTitle });
    const { id } = await env.ctx.db.transaction((tx) =>
      createException(tx, riskParent, admin, { parentId: riskId, title: unique('Unsupported OS'), description: 'Until migration', expiresAt: '2099-01-01' }));
    const [created] = await shown(admin, 'riskException', id);
    const change = (label: string) => created.changes.find((c) => c.label === label);
    expect(change('Parent type')?.after).toEqual({ text: 'Risk' });
    expect(change('Risk')?.after).toEqual({ text: riskTitle, links: [{ text: riskTitle, href: `/risks/${riskId}` }] });

    // A reader who may not read the risk sees neither its title nor a link.
    const reader = await makeUser(env, { 'risks:read': 'own' });
    const theirs = await env.ctx.db.transaction((tx) =>
      createException(tx, riskParent, admin, { parentId: riskId, title: unique('Theirs'), description: 'x', expiresAt: '2099-01-01', ownerId: reader.id }));
    const [seen] = await shown(await reader.actor(), 'riskException', theirs.id);
    expect(seen.changes.find((c) => c.label === 'Risk')?.after).toEqual({ text: '(restricted)' });

    const page = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = await (await page.get(`/risks/exceptions/${id}`)).text();
    const history = html.slice(html.indexOf('id="exception-history"'));
    expect(history).toContain('<strong>Parent type</strong>: <span>—</span> → <span>Risk</span>');
    expect(history).toContain(`<strong>Risk</strong>: <span>—</span> → <span><a href="/risks/${riskId}">${riskTitle}</a></span>`);
  });
});

describe('mappings made from the requirement\'s side in the mapped record\'s History', () => {
  test('a control shows being mapped to and unmapped from a requirement, named; an unrelated control does not', async () => {
    const { id: packageId } = await env.ctx.db.transaction((tx) => importPackage(tx, admin, { name: unique('Framework'), items: [{ code: 'AC-2', name: 'Account management' }] }));
    const [{ id: analysisId }] = await env.ctx.db.select({ id: complianceAnalyses.id }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, packageId));
    const make = async (name: string) => (await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name }))).id as string;
    const controlId = await make(unique('Joiner-mover-leaver'));
    const otherId = await make(unique('Unrelated'));
    await env.ctx.db.transaction((tx) => linkRecord(tx, admin, analysisId, 'controls', controlId));
    await env.ctx.db.transaction((tx) => linkRecord(tx, admin, analysisId, 'controls', otherId));
    await env.ctx.db.transaction((tx) => unlinkRecord(tx, admin, analysisId, 'controls', controlId));

    const entries = await shown(admin, 'control', controlId);
    expect(entries.map(line)).toEqual(['Control unlinked | Requirement: AC-2 Account management', 'Control linked | Requirement: AC-2 Account management', 'Created | this record']);
    expect((await shown(admin, 'control', otherId)).map(line)).toEqual(['Control linked | Requirement: AC-2 Account management', 'Created | this record']);

    // A reader of controls who may not read the requirement sees that it happened, not what it names.
    const reader = await makeUser(env, { 'controls:read': 'all' });
    const restricted = await shown(await reader.actor(), 'control', controlId);
    expect(restricted.filter((e) => e.record).every((e) => e.hidden && e.changes.length === 0 && !e.record!.title.includes('AC-2'))).toBe(true);

    const page = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = await (await page.get(`/controls/${controlId}`)).text();
    const history = html.slice(html.indexOf('id="record-history"'));
    expect(history).toContain('Control linked');
    expect(history).toContain('AC-2 Account management');
  });
});
