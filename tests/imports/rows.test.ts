import { beforeAll, describe, expect, test } from 'bun:test';
import { eq, max } from 'drizzle-orm';
import { auditLog, risks, users } from '../../db/schema';
import { auditPlanKind } from '../../src/modules/audits/service';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { policyKind } from '../../src/modules/policies/service';
import { createUser, setUserStatus } from '../../src/modules/people/service';
import { createRecord } from '../../src/platform/records/records';
import { systemActor, type Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';
import { postCsv, riskByTitle, rowAt } from './helpers';

// Row by row: what a cell, a row's shape and the importer's rights make of each row, and what a check leaves behind.

let env: TestEnv;
let admin: Actor;
let token: string;

const MODULES = ['risks', 'controls', 'assets', 'policies', 'thirdParties', 'incidents', 'projects', 'audits', 'compliance'] as const;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, MODULES.flatMap((m) => [`${m}:read`, `${m}:create`, `${m}:update`] as const));
});

const auditHead = async () => (await env.ctx.db.select({ head: max(auditLog.seq) }).from(auditLog))[0].head ?? 0;
const RISK_HEADER = 'title,classification,inherent_likelihood,inherent_impact';

describe('Check file writes nothing to the Audit Log, for every import type', () => {
  // One valid create row per type (parents made here); each check must answer Create and leave the log as it was.
  const types: { area: string; csv: () => Promise<string> }[] = [
    { area: 'risks', csv: async () => `${RISK_HEADER}\n${unique('Checked risk')},Operational,3,4\n` },
    { area: 'controls', csv: async () => `name\n${unique('Checked control')}\n` },
    { area: 'assets', csv: async () => `name\n${unique('Checked asset')}\n` },
    { area: 'policies', csv: async () => `title,review_frequency_months\n${unique('Checked policy')},6\n` },
    { area: 'third-parties', csv: async () => `name,type\n${unique('Checked vendor')},partner\n` },
    { area: 'incidents', csv: async () => `title,opened_at\n${unique('Checked incident')},2026-01-05\n` },
    { area: 'projects', csv: async () => `title,status\n${unique('Checked project')},in_progress\n` },
    {
      area: 'audits/findings',
      csv: async () => {
        const plan = unique('Checked plan');
        await env.ctx.db.transaction((tx) => createRecord(tx, auditPlanKind, admin, { title: plan }));
        return `audit_plan,title\n${plan},${unique('Checked finding')}\n`;
      },
    },
    {
      area: 'risks/exceptions',
      csv: async () => `risk,title,description,expires_at\n${await makeRisk(env, admin)},${unique('Checked exception')},Why,2099-01-01\n`,
    },
    {
      area: 'policies/exceptions',
      csv: async () => {
        const { id } = await env.ctx.db.transaction((tx) => createRecord(tx, policyKind, admin, { title: unique('Checked parent policy') }));
        return `policy,title,description,expires_at\n${id},${unique('Checked exception')},Why,2099-01-01\n`;
      },
    },
    {
      area: 'compliance/exceptions',
      csv: async () => {
        const name = unique('Checked framework');
        await env.ctx.db.transaction((tx) => importPackage(tx, admin, { name, items: [{ code: 'C1', name: 'Control one' }] }));
        return `package,requirement,title,description,expires_at\n${name},C1,${unique('Checked exception')},Why,2099-01-01\n`;
      },
    },
  ];

  for (const type of types) {
    test(type.area, async () => {
      const csv = await type.csv();
      const before = await auditHead();
      const checked = await postCsv(env, token, type.area, csv, 'check', 'checked.csv');
      expect(checked.status, checked.text).toBe(200);
      expect(checked.data).toMatchObject({ outcome: 'checked', counts: { create: 1, update: 0, unchanged: 0, error: 0 } });
      expect(await auditHead()).toBe(before);
      // The same file imported: its record, its trail and the run's summary entry are written.
      const applied = await postCsv(env, token, type.area, csv, 'apply', 'checked.csv');
      expect(applied.data.outcome, applied.text).toBe('imported');
      const written = await env.ctx.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.seq, await auditHead()));
      expect(written.map((entry) => entry.action)).toEqual(['import']);
      expect(await auditHead()).toBe(before + 2);
    });
  }

  test('a check with update and error rows writes nothing either', async () => {
    const title = unique('Checked update');
    await makeRisk(env, admin, { title });
    const { id } = await riskByTitle(env, title);
    const before = await auditHead();
    const checked = await postCsv(env, token, 'risks', `id,title,inherent_impact\n${id},${title} renamed,5\n,,1\n`, 'check');
    expect(checked.data.counts).toEqual({ create: 0, update: 1, unchanged: 0, error: 1 });
    expect(await auditHead()).toBe(before);
    expect((await riskByTitle(env, title)).inherentImpact).toBe(4);
  });
});

describe('cells of an update row', () => {
  test('a bad cell in an update row is an error row naming its column, never dropped, and nothing is imported', async () => {
    const title = unique('Updated risk');
    await makeRisk(env, admin, { title });
    const { id } = await riskByTitle(env, title);
    const csv = `id,title,review_frequency_months,status,inherent_impact\n${id},${title},twelve,half-open,4\n`;
    const checked = await postCsv(env, token, 'risks', csv, 'check');
    expect(rowAt(checked.data, 2)).toEqual({
      line: 2, outcome: 'error',
      errors: [
        { column: 'review_frequency_months', message: expect.stringContaining('"twelve"') },
        { column: 'status', message: expect.stringContaining('"half-open"') },
      ],
    });
    const applied = await postCsv(env, token, 'risks', csv, 'apply');
    expect(applied.status).toBe(422);
    expect(applied.data.outcome).toBe('refused');
    expect(await riskByTitle(env, title)).toMatchObject({ reviewFrequencyMonths: 12, status: 'open' });
  });

  test('an id with spaces around it, or in capitals, still names the record to update', async () => {
    const title = unique('Spaced id');
    await makeRisk(env, admin, { title });
    const { id } = await riskByTitle(env, title);
    const checked = await postCsv(env, token, 'risks', `id,title\n  ${id} ,${title} renamed\n${id.toUpperCase()}, ${title} again\n`, 'check');
    expect(rowAt(checked.data, 2)).toEqual({ line: 2, outcome: 'update', id, title: `${title} renamed`, changes: [{ column: 'title', old: title, new: `${title} renamed` }] });
    expect(rowAt(checked.data, 3).errors).toEqual([{ column: 'id', message: 'the same id is on line 2' }]);
    // Alone in its file too: the record is looked up by the id without its spaces.
    const alone = await postCsv(env, token, 'risks', `id,title\n ${id} ,${title} renamed\n`, 'check');
    expect(rowAt(alone.data, 2)).toMatchObject({ outcome: 'update', id });
  });

  test('a cell of only spaces is blank: on create a required one is missing, on update it clears the column', async () => {
    const created = await postCsv(env, token, 'risks', `${RISK_HEADER}\n   ,Operational,3,4\n`, 'check');
    expect(rowAt(created.data, 2).errors).toEqual([{ column: 'title', message: 'is required' }]);
    const title = unique('Spaces clear');
    await makeRisk(env, admin, { title, description: 'Said something' });
    const { id } = await riskByTitle(env, title);
    const updated = await postCsv(env, token, 'risks', `id,description\n${id},   \n`, 'check');
    expect(rowAt(updated.data, 2)).toEqual({ line: 2, outcome: 'update', id, changes: [{ column: 'description', old: 'Said something', new: '' }] });
  });

  test('a good update row lists each changed column old -> new; cells that match the record are no change', async () => {
    const title = unique('Updated risk');
    await makeRisk(env, admin, { title });
    const { id } = await riskByTitle(env, title);
    const csv = `id,title,review_frequency_months,inherent_impact,description\n${id},${title},24,4,\n`;
    const applied = await postCsv(env, token, 'risks', csv, 'apply');
    expect(rowAt(applied.data, 2)).toEqual({ line: 2, outcome: 'update', id, title, changes: [{ column: 'review_frequency_months', old: '12', new: '24' }] });
    const again = await postCsv(env, token, 'risks', csv, 'check');
    expect(rowAt(again.data, 2)).toEqual({ line: 2, outcome: 'unchanged', id, title });
  });
  test('a cell equal to the record is no change and is not read again: an owner who has left is kept while the title changes', async () => {
    const title = unique('Owner left');
    const leaver = await makeUser(env, {});
    const id = await makeRisk(env, admin, { title, ownerId: leaver.id });
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), leaver.id, 'deactivated'));
    // The row as a download writes it (the owner by e-mail), with the title edited.
    const csv = `id,title,owner\n${id},${title} renamed,${leaver.email}\n`;
    const checked = await postCsv(env, token, 'risks', csv, 'check');
    expect(rowAt(checked.data, 2)).toEqual({ line: 2, outcome: 'update', id, title: `${title} renamed`, changes: [{ column: 'title', old: title, new: `${title} renamed` }] });
    // Handing a record to the account that has left is still refused.
    const other = await makeRisk(env, admin, { title: unique('Not theirs') });
    const handed = await postCsv(env, token, 'risks', `id,owner\n${other},${leaver.email}\n`, 'check');
    expect(rowAt(handed.data, 2).errors).toEqual([{ column: 'owner', message: `the account ${leaver.email} is not active` }]);
  });
  test('a value the schema refuses is an error row naming its column, next to a cell that cannot be read, on create and on update', async () => {
    const title = unique('Schema checked');
    const id = await makeRisk(env, admin, { title });
    // Text the title column reads as it is, but over the schema's 300 characters.
    const long = 'x'.repeat(301);
    const tooLong = { column: 'title', message: 'expected string length less or equal to 300' };
    const notAStatus = { column: 'status', message: '"half-open" is not one of: Open, Closed, Archived' };
    const csv = `id,title,classification,inherent_likelihood,inherent_impact,status\n${id},${long},Operational,3,4,\n${id},${long},Operational,3,4,half-open\n,${long},Operational,3,4,\n,${long},Operational,3,4,half-open\n`;
    const checked = await postCsv(env, token, 'risks', csv, 'check');
    expect(checked.data.rows).toEqual([
      { line: 2, outcome: 'error', errors: [tooLong] },
      { line: 3, outcome: 'error', errors: [{ column: 'id', message: 'the same id is on line 2' }, notAStatus, tooLong] },
      { line: 4, outcome: 'error', errors: [tooLong] },
      { line: 5, outcome: 'error', errors: [notAStatus, tooLong] },
    ]);
    expect((await riskByTitle(env, title)).title).toBe(title);
  });
});

describe('what a row result says', () => {
  test("a row's title is its title (or name) cell wherever that column stands in the file", async () => {
    const title = unique('Title second');
    const risk = await postCsv(env, token, 'risks', `classification,title,inherent_likelihood,inherent_impact\nOperational,${title},3,4\n`, 'check');
    expect(rowAt(risk.data, 2).title).toBe(title);
    const name = unique('Name second');
    const control = await postCsv(env, token, 'controls', `description,name\nWhat it does,${name}\n`, 'check');
    expect(rowAt(control.data, 2).title).toBe(name);
  });

  test('a create row lists the columns it sets and not those left blank; once imported it names the new record', async () => {
    const title = unique('Created row');
    const csv = `title,description,classification,inherent_likelihood,inherent_impact,status\n${title},,Operational,3,4,\n`;
    const changes = [
      { column: 'title', old: '', new: title },
      { column: 'classification', old: '', new: 'Operational' },
      { column: 'inherent_likelihood', old: '', new: '3' },
      { column: 'inherent_impact', old: '', new: '4' },
      // The status the service gave it, as the screens label it.
      { column: 'status', old: '', new: 'Open' },
    ];
    const checked = await postCsv(env, token, 'risks', csv, 'check');
    expect(checked.data.rows).toEqual([{ line: 2, outcome: 'create', title, changes }]);
    const applied = await postCsv(env, token, 'risks', csv, 'apply');
    expect(applied.data.rows).toEqual([{ line: 2, outcome: 'create', id: (await riskByTitle(env, title)).id, title, changes }]);
  });

  test('handing a record to another person of the same name is a change, though both show the same name', async () => {
    const name = unique('Same Name');
    const [first, second] = await env.ctx.db.transaction(async (tx) => [
      await createUser(tx, systemActor(), { email: `${unique('first')}@test.example`, name }),
      await createUser(tx, systemActor(), { email: `${unique('second')}@test.example`, name }),
    ]);
    const id = await makeRisk(env, admin, { title: unique('Handed over'), ownerId: first.id });
    const [email] = (await env.ctx.db.select({ email: users.email }).from(users).where(eq(users.id, second.id))).map((u) => u.email);
    const checked = await postCsv(env, token, 'risks', `id,owner\n${id},${email}\n`, 'check');
    expect(rowAt(checked.data, 2)).toMatchObject({ outcome: 'update', changes: [{ column: 'owner', old: name, new: name }] });
  });
});

describe('blank cells on update', () => {
  test('a blank cell of a column that cannot be blank keeps the stored value', async () => {
    const title = unique('Kept title');
    const id = await makeRisk(env, admin, { title });
    const checked = await postCsv(env, token, 'risks', `id,title,inherent_impact\n${id},,\n`, 'check');
    expect(rowAt(checked.data, 2)).toEqual({ line: 2, outcome: 'unchanged', id, title });
  });

  test('a blank cell of a column declared kept on update keeps the stored value, though the field could be cleared', async () => {
    const title = unique('Kept review');
    const imported = await postCsv(env, token, 'policies', `title,review_frequency_months\n${title},6\n`, 'apply');
    const { id } = rowAt(imported.data, 2);
    const checked = await postCsv(env, token, 'policies', `id,review_frequency_months\n${id},\n`, 'check');
    expect(rowAt(checked.data, 2)).toEqual({ line: 2, outcome: 'unchanged', id });
  });
});

describe('the shape of a row', () => {
  test('a row with fewer fields than the header is an error row saying so, on create and on update', async () => {
    const title = unique('Short row');
    await makeRisk(env, admin, { title });
    const { id } = await riskByTitle(env, title);
    const created = await postCsv(env, token, 'risks', `${RISK_HEADER}\n${unique('Short')},Operational,3\n`, 'check');
    // The missing cell is blank: its column is required, nothing else is read into it.
    expect(rowAt(created.data, 2)).toEqual({
      line: 2, outcome: 'error', errors: [{ column: '', message: 'has 3 fields; the header has 4' }, { column: 'inherent_impact', message: 'is required' }],
    });
    const updated = await postCsv(env, token, 'risks', `id,title,description\n${id},${title}\n`, 'check');
    expect(rowAt(updated.data, 2)).toEqual({ line: 2, outcome: 'error', errors: [{ column: '', message: 'has 2 fields; the header has 3' }] });
  });

  test('trailing blank cells are allowed; a trailing cell with text is an error row', async () => {
    const blank = unique('Trailing blanks');
    const checked = await postCsv(env, token, 'risks', `${RISK_HEADER}\n${blank},Operational,3,4,,\n${unique('Trailing text')},Operational,3,4,,extra\n`, 'check');
    expect(rowAt(checked.data, 2)).toEqual({ line: 2, outcome: 'create', title: blank, changes: expect.arrayContaining([{ column: 'title', old: '', new: blank }]) });
    expect(rowAt(checked.data, 3)).toEqual({ line: 3, outcome: 'error', errors: [{ column: '', message: 'has 6 fields; the header has 4' }] });
    const applied = await postCsv(env, token, 'risks', `${RISK_HEADER}\n${blank},Operational,3,4, , \n`, 'apply');
    expect(applied.data.outcome, applied.text).toBe('imported');
    expect(await riskByTitle(env, blank)).toMatchObject({ inherentLikelihood: 3, inherentImpact: 4 });
  });

  test("a first row whose first cell starts with # is a record, not the template's help row", async () => {
    const [first, second] = [`#1 ${unique('Ransomware')}`, unique('Second')];
    const applied = await postCsv(env, token, 'risks', `${RISK_HEADER}\n${first},Operational,3,4\n${second},Operational,2,2\n`, 'apply');
    expect(applied.data.counts, applied.text).toEqual({ create: 2, update: 0, unchanged: 0, error: 0 });
    expect(applied.data.rows.map((r) => r.line)).toEqual([2, 3]);
    expect(await riskByTitle(env, first)).toMatchObject({ inherentLikelihood: 3, inherentImpact: 4 });
    const alone = await postCsv(env, token, 'controls', `name,description\n# ${unique('Hash control')},one row\n`, 'check');
    expect(alone.data.counts, alone.text).toEqual({ create: 1, update: 0, unchanged: 0, error: 0 });
  });

  test("the template's help row is skipped wherever its columns were moved, and only that row", async () => {
    const name = unique('Reordered template');
    // The help row as the template writes it, for the columns in this file's order (title moved before id).
    const help = ['required: text, up to 300 characters', '# filled: update that record; blank: create one'];
    const answer = await postCsv(env, token, 'controls', `name,id\n"${help[0]}","${help[1]}"\n${name},\n`, 'check');
    expect(answer.data.rows).toEqual([{ line: 3, outcome: 'create', title: name, changes: expect.arrayContaining([{ column: 'name', old: '', new: name }]) }]);
  });

  test('a row of the right length with a blank required cell names the column; a missing required column is named too', async () => {
    const answer = await postCsv(env, token, 'risks', `title,classification,inherent_likelihood\n,Operational,3\n`, 'check');
    expect(rowAt(answer.data, 2).errors).toEqual([
      { column: 'title', message: 'is required' },
      { column: 'inherent_impact', message: 'is required (column missing)' },
    ]);
  });
});

describe('rights per row', () => {
  test('with update alone a create row is an error row; with create alone an update row is', async () => {
    const title = unique('Rights row');
    await makeRisk(env, admin, { title });
    const { id } = await riskByTitle(env, title);
    const csv = `id,title,classification,inherent_likelihood,inherent_impact\n${id},${title} renamed,Operational,3,4\n,${unique('New')},Operational,3,4\n`;
    const updater = await makeUser(env, { 'risks:read': 'all', 'risks:update': 'all', 'apiTokens:create': 'own' });
    const asUpdater = await postCsv(env, await makeToken(env, await updater.actor(), ['risks:read', 'risks:update']), 'risks', csv, 'check');
    expect(asUpdater.data.rows).toEqual([
      { line: 2, outcome: 'update', id, title: `${title} renamed`, changes: [{ column: 'title', old: title, new: `${title} renamed` }] },
      { line: 3, outcome: 'error', errors: [{ column: '', message: 'creating needs the right risks:create' }] },
    ]);
    const creator = await makeUser(env, { 'risks:read': 'all', 'risks:create': 'all', 'apiTokens:create': 'own' });
    const asCreator = await postCsv(env, await makeToken(env, await creator.actor(), ['risks:read', 'risks:create']), 'risks', csv, 'check');
    expect(asCreator.data.rows).toEqual([
      { line: 2, outcome: 'error', errors: [{ column: 'id', message: 'updating needs the right risks:update' }] },
      { line: 3, outcome: 'create', title: expect.any(String), changes: expect.arrayContaining([{ column: 'classification', old: '', new: 'Operational' }]) },
    ]);
    expect((await env.ctx.db.select().from(risks).where(eq(risks.id, id)))[0].title).toBe(title);
  });
});
