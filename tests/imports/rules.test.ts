import { beforeAll, describe, expect, test } from 'bun:test';
import { count, eq } from 'drizzle-orm';
import { auditLog, controls, history, risks } from '../../db/schema';
import { assetKind } from '../../src/modules/assets/service';
import { createCustomField } from '../../src/modules/customFields/service';
import { createRecord } from '../../src/platform/records/records';
import { projectImport } from '../../src/modules/projects/import';
import { csvCurrentRecords, csvTemplate } from '../../src/platform/csv/engine';
import { parseCsv } from '../../src/platform/csv/parse';
import { setUserStatus } from '../../src/modules/people/service';
import { systemActor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { errorColumns, postCsv, riskByTitle, rowAt } from './helpers';

let env: TestEnv;
let token: string;
let owner: TestUser;
let groupName: string;

beforeAll(async () => {
  env = await testEnv();
  const admin = await adminActor(env);
  token = await makeToken(env, admin, ['risks:create', 'risks:update', 'risks:read', 'controls:create', 'controls:update', 'controls:read', 'assets:create', 'assets:update', 'assets:read']);
  owner = await makeUser(env, { 'risks:read': 'all' });
  const { listGroups } = await import('../../src/modules/people/service');
  groupName = (await listGroups(env.ctx.db)).find((g) => g.id === owner.groupId)!.name;
});

const riskCount = async () => (await env.ctx.db.select({ n: count() }).from(risks))[0].n;

describe('Check file and Import rows', () => {
  test('check runs every row and saves nothing; apply imports with audit and History marked as a CSV import of the file', async () => {
    const a = unique('Imported risk');
    const b = unique('Imported risk');
    const csv = `title,classification,inherent_likelihood,inherent_impact\n${a},Operational,3,4\n${b},Operational,2,2\n`;
    const before = await riskCount();
    const checked = await postCsv(env, token, 'risks', csv, 'check', 'register.csv');
    expect(checked.status, checked.text).toBe(200);
    expect(checked.data.outcome).toBe('checked');
    expect(checked.data.counts).toEqual({ create: 2, update: 0, unchanged: 0, error: 0 });
    expect(await riskCount()).toBe(before);

    const applied = await postCsv(env, token, 'risks', csv, 'apply', 'register.csv');
    expect(applied.status, applied.text).toBe(200);
    expect(applied.data.outcome).toBe('imported');
    expect(await riskCount()).toBe(before + 2);
    const risk = await riskByTitle(env, a);
    expect(risk.inherentLikelihood).toBe(3);
    const [entry] = await env.ctx.db.select().from(history).where(eq(history.recordId, risk.id));
    expect(entry.via).toBe('import');
    expect(entry.source).toBe('CSV import of register.csv');
    const audits = await env.ctx.db.select().from(auditLog).where(eq(auditLog.recordId, risk.id));
    expect(audits.map((e) => e.action)).toEqual(['create']);
    expect(audits[0].via).toBe('import');
    // The database is shared with other test files: find this run's summary by its file name and outcome.
    const summaries = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'import'));
    const mine = summaries.find((s) => (s.details as { file: string; outcome: string }).file === 'register.csv' && (s.details as { outcome: string }).outcome === 'imported');
    expect(mine?.module).toBe('risks');
    expect(mine?.details).toEqual({ file: 'register.csv', rows: 2, counts: { create: 2, update: 0, unchanged: 0, error: 0 }, outcome: 'imported' });
  });

  test('when any row fails on apply nothing is imported (422, refused) and the run is still in the Audit Log', async () => {
    const good = unique('Good risk');
    const csv = `title,classification,inherent_likelihood,inherent_impact\n${good},Operational,3,4\n,Operational,3,4\n`;
    const applied = await postCsv(env, token, 'risks', csv, 'apply', 'half-bad.csv');
    expect(applied.status, applied.text).toBe(422);
    expect(applied.data.outcome).toBe('refused');
    expect(applied.data.counts).toEqual({ create: 1, update: 0, unchanged: 0, error: 1 });
    expect(rowAt(applied.data, 3).errors).toEqual([{ column: 'title', message: 'is required' }]);
    expect(await riskByTitle(env, good)).toBeUndefined();
    const summaries = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'import'));
    expect(summaries.some((s) => (s.details as { file: string; outcome: string }).file === 'half-bad.csv' && (s.details as { outcome: string }).outcome === 'refused')).toBe(true);
  });
});

describe('Row rules', () => {
  test('an id updates that record, naming each changed column old -> new; unknown and repeated ids are error rows', async () => {
    const admin = await adminActor(env);
    const id = await makeRisk(env, admin, { title: unique('To update'), inherentLikelihood: 2, inherentImpact: 2 });
    const csv = [
      'id,title,inherent_likelihood,status,review_frequency_months',
      `${id},Renamed risk ${id.slice(0, 8)},Likely,Closed,6`,
      '00000000-0000-4000-8000-000000000000,Ghost,1,open,12',
      `${id},Again,1,open,12`,
      'not-an-id,Ghost,1,open,12',
    ].join('\n');
    const checked = await postCsv(env, token, 'risks', csv, 'check');
    expect(checked.status, checked.text).toBe(200);
    const update = rowAt(checked.data, 2);
    expect(update.outcome).toBe('update');
    expect(update.changes).toEqual(expect.arrayContaining([
      { column: 'title', old: expect.stringContaining('To update'), new: `Renamed risk ${id.slice(0, 8)}` },
      { column: 'inherent_likelihood', old: '2', new: '4' },
      // Stored keys as the screens label them.
      { column: 'status', old: 'Open', new: 'Closed' },
      { column: 'review_frequency_months', old: '12', new: '6' },
    ]));
    expect(update.changes).toHaveLength(4);
    // Both are problems of the id cell: the screen marks that column.
    expect(rowAt(checked.data, 3).errors?.[0]).toEqual({ column: 'id', message: 'no risk with id 00000000-0000-4000-8000-000000000000' });
    expect(rowAt(checked.data, 4).errors?.[0]).toEqual({ column: 'id', message: 'the same id is on line 2' });
    expect(rowAt(checked.data, 5).outcome).toBe('error');
  });

  test('required columns are enforced on create, and every reason of a row is listed', async () => {
    const csv = 'title,classification,inherent_likelihood,inherent_impact,review_frequency_months,owner,owner_group,status\n,,Often,9,0,nobody@nowhere.example,No Such Group,maybe\n';
    const checked = await postCsv(env, token, 'risks', csv, 'check');
    expect(errorColumns(checked.data, 2)).toEqual(
      ['classification', 'inherent_impact', 'inherent_likelihood', 'owner', 'owner_group', 'review_frequency_months', 'status', 'title'],
    );
    const missingColumn = await postCsv(env, token, 'controls', 'description\nNo name column\n', 'check');
    expect(rowAt(missingColumn.data, 2).errors).toEqual([{ column: 'name', message: 'is required (column missing)' }]);
  });

  test('allowed values match ignoring case, spaces and underscores; risk levels by value or name', async () => {
    const names = [unique('C'), unique('C'), unique('C')];
    const csv = `name,type,status\n${names[0]},TECHNICAL,Re Tired\n${names[1]},phys_ical,  planned  \n${names[2]},Other,ACTIVE\n`;
    const applied = await postCsv(env, token, 'controls', csv, 'apply');
    expect(applied.status, applied.text).toBe(200);
    const [row] = await env.ctx.db.select().from(controls).where(eq(controls.name, names[0]));
    expect([row.type, row.status]).toEqual(['technical', 'retired']);
    const [second] = await env.ctx.db.select().from(controls).where(eq(controls.name, names[1]));
    expect([second.type, second.status]).toEqual(['physical', 'planned']);

    const title = unique('Levels');
    const risk = await postCsv(env, token, 'risks', `title,classification,inherent_likelihood,inherent_impact,status\n${title},operational,almost_certain,2,In Progress\n`, 'check');
    expect(rowAt(risk.data, 2).errors).toEqual([{ column: 'status', message: '"In Progress" is not one of: Open, Closed, Archived' }]);
    const ok = await postCsv(env, token, 'risks', `title,classification,inherent_likelihood,inherent_impact,status\n${title},operational,ALMOST CERTAIN,2,CLOSED\n`, 'apply');
    expect(ok.status, ok.text).toBe(200);
    const stored = await riskByTitle(env, title);
    expect([stored.inherentLikelihood, stored.inherentImpact, stored.status]).toEqual([5, 2, 'closed']);
  });

  test('blanks take the documented defaults', async () => {
    const name = unique('Defaults');
    const title = unique('Defaults');
    expect((await postCsv(env, token, 'controls', `name,type,status,owner\n${name},,,\n`, 'apply')).status).toBe(200);
    const [control] = await env.ctx.db.select().from(controls).where(eq(controls.name, name));
    expect([control.type, control.status, control.description]).toEqual(['process', 'active', '']);
    expect(control.ownerId).not.toBeNull();
    expect((await postCsv(env, token, 'risks', `title,classification,inherent_likelihood,inherent_impact,review_frequency_months,status\n${title},Operational,1,1,,\n`, 'apply')).status).toBe(200);
    const risk = await riskByTitle(env, title);
    expect([risk.reviewFrequencyMonths, risk.status]).toEqual([12, 'open']);
  });

  test('review_frequency_months is a whole number 1..120', async () => {
    const header = 'title,classification,inherent_likelihood,inherent_impact,review_frequency_months';
    const values = ['0', '121', '1.5', 'twelve', '1', '120'];
    const csv = [header, ...values.map((v) => `R ${v},Operational,1,1,${v}`)].join('\n');
    const checked = await postCsv(env, token, 'risks', csv, 'check');
    expect(checked.data.rows.map((r) => r.outcome)).toEqual(['error', 'error', 'error', 'error', 'create', 'create']);
    expect(rowAt(checked.data, 2).errors?.[0]).toEqual({ column: 'review_frequency_months', message: 'must be between 1 and 120' });
  });

  test('owners must be active accounts (by e-mail) and owner groups must exist (by name)', async () => {
    const inactive = await makeUser(env, {});
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), inactive.id, 'deactivated'));
    const csv = [
      'name,owner,owner_group',
      `${unique('O')},${owner.email.toUpperCase()},${groupName}`,
      `${unique('O')},${inactive.email},`,
      `${unique('O')},nobody@example.com,`,
      `${unique('O')},,Nope ${unique('g')}`,
    ].join('\n');
    const checked = await postCsv(env, token, 'controls', csv, 'check');
    expect(rowAt(checked.data, 2).outcome).toBe('create');
    expect(rowAt(checked.data, 3).errors).toEqual([{ column: 'owner', message: `the account ${inactive.email} is not active` }]);
    expect(rowAt(checked.data, 4).errors?.[0].column).toBe('owner');
    expect(rowAt(checked.data, 5).errors?.[0].column).toBe('owner_group');
  });

  test('custom fields are extra columns checked by their type (dates real and YYYY-MM-DD); not accepted where the spec says no', async () => {
    const key = `imp${Date.now().toString(36)}`;
    const system = systemActor();
    await env.ctx.db.transaction(async (tx) => {
      await createCustomField(tx, system, { module: 'controls', key: `${key}d`, label: 'Review date', type: 'date' });
      await createCustomField(tx, system, { module: 'controls', key: `${key}n`, label: 'Cost', type: 'number' });
      await createCustomField(tx, system, { module: 'controls', key: `${key}s`, label: 'Tier', type: 'singleSelect', options: ['Tier One', 'Tier Two'] });
    });
    const name = unique('Custom');
    const csv = [
      `name,cf.${key}d,cf.${key}n,cf.${key}s`,
      `${name},2024-02-29,12.5,tier_one`,
      `${unique('Custom')},2023-02-29,abc,Tier Three`,
      `${unique('Custom')},29/02/2024,,`,
    ].join('\n');
    const checked = await postCsv(env, token, 'controls', csv, 'check');
    expect(rowAt(checked.data, 2).outcome).toBe('create');
    expect(errorColumns(checked.data, 3)).toEqual([`cf.${key}d`, `cf.${key}n`, `cf.${key}s`]);
    expect(rowAt(checked.data, 4).errors?.[0].message).toContain('YYYY-MM-DD');
    expect((await postCsv(env, token, 'controls', csv.split('\n').slice(0, 2).join('\n'), 'apply')).status).toBe(200);
    const [control] = await env.ctx.db.select().from(controls).where(eq(controls.name, name));
    const { loadCustomFields } = await import('../../src/platform/records/custom-field-values');
    expect((await loadCustomFields(env.ctx.db, 'controls', [control.id])).get(control.id)).toEqual({ [`${key}d`]: '2024-02-29', [`${key}n`]: 12.5, [`${key}s`]: 'Tier One' });
    const assets = await postCsv(env, token, 'assets', `name,cf.${key}d\nX,2024-01-01\n`, 'check');
    expect(assets.status).toBe(422);
    expect(assets.error).toContain(`Unknown column "cf.${key}d"`);
  });

  test('custom field columns of every type: what each reads and refuses, what the template says of it, what a download writes', async () => {
    const key = `all${Date.now().toString(36)}`;
    const system = systemActor();
    await env.ctx.db.transaction(async (tx) => {
      await createCustomField(tx, system, { module: 'projects', key: `${key}n`, label: 'Budget', type: 'number' });
      await createCustomField(tx, system, { module: 'projects', key: `${key}d`, label: 'Kick-off', type: 'date' });
      await createCustomField(tx, system, { module: 'projects', key: `${key}b`, label: 'Funded', type: 'boolean' });
      await createCustomField(tx, system, { module: 'projects', key: `${key}s`, label: 'Size', type: 'singleSelect', options: ['Small', 'Large'] });
      await createCustomField(tx, system, { module: 'projects', key: `${key}m`, label: 'Teams', type: 'multiSelect', options: ['Alpha', 'Beta', 'Gamma'] });
      await createCustomField(tx, system, { module: 'projects', key: `${key}t`, label: 'Sponsor', type: 'text' });
    });
    const admin = await adminActor(env);
    const projects = await makeToken(env, admin, ['projects:create', 'projects:update', 'projects:read']);
    const cf = ['n', 'd', 'b', 's', 'm', 't'].map((k) => `cf.${key}${k}`);

    // The template's help row says what each custom column takes.
    const template = parseCsv(await csvTemplate(env.ctx.db, projectImport));
    const [header, help] = [template.header, template.rows[0].cells];
    expect(cf.map((name) => help[header.indexOf(name)])).toEqual([
      'a number', 'date YYYY-MM-DD', 'true or false', 'Small, Large', 'any of Alpha, Beta, Gamma, separated by |', 'text',
    ]);

    // What each type reads: one good row per way of writing a value, then the values each type refuses.
    const good: [string, string, string, string, string, string][] = [
      ['12', '2024-02-29', 'true', 'small', 'alpha | GAMMA| ||', 'Ada'],
      ['+1.25', '2024-12-31', 'YES', 'LARGE', 'Beta', 'x'],
      ['-3e2', '2025-01-01', 'false', 'Small', '|Alpha|', 'y'],
      ['2.5E-10', '2025-06-30', 'No', 'Large', 'gamma|beta', 'z'],
      ['7e+2', '2025-02-28', 'True', 'small', 'Alpha', 'w'],
    ];
    const rows = good.map((cells) => [unique('Custom project'), ...cells]);
    const csv = (lines: string[][]) => [['title', ...cf], ...lines].map((cells) => cells.join(',')).join('\n');
    const checked = await postCsv(env, projects, 'projects', csv(rows), 'check');
    expect(checked.data.rows.map((r) => [r.outcome, r.errors]), checked.text).toEqual(good.map(() => ['create', undefined]));

    const refused = [
      ['n', 'x12'], ['n', '12x'], ['n', '1.'], ['n', '.5'], ['n', '1 5'], ['n', '1e'], ['n', '1.2.3'], ['n', '--1'], ['n', '1e2.5'], ['n', 'twelve'],
      ['b', 'maybe'], ['b', 'yes please'], ['b', 'not true'], ['b', 'say no'], ['b', 'nope'], ['b', 'false!'], ['b', '1'],
      ['m', 'Alpha|Delta'], ['s', 'Medium'], ['d', '2023-02-29'],
    ];
    const bad = await postCsv(env, projects, 'projects', csv(refused.map(([k, text]) => {
      const cells = ['', '', '', '', '', ''];
      cells[['n', 'd', 'b', 's', 'm', 't'].indexOf(k)] = text;
      return [unique('Refused project'), ...cells];
    })), 'check');
    const messages: Record<string, (text: string) => string> = {
      n: (text) => `"${text}" is not a number`,
      b: (text) => `"${text}" is not true or false`,
      m: () => '"Delta" is not one of: Alpha, Beta, Gamma',
      s: () => '"Medium" is not one of: Small, Large',
      d: (text) => `"${text}" is not a real date written YYYY-MM-DD`,
    };
    expect(bad.data.rows.map((r) => r.errors)).toEqual(refused.map(([k, text]) => [{ column: `cf.${key}${k}`, message: messages[k](text) }]));

    // Imported, the values are stored typed and a download writes them as the import reads them.
    const applied = await postCsv(env, projects, 'projects', csv(rows), 'apply');
    expect(applied.data.outcome, applied.text).toBe('imported');
    const { loadCustomFields } = await import('../../src/platform/records/custom-field-values');
    const ids = applied.data.rows.map((r) => r.id!);
    const stored = await loadCustomFields(env.ctx.db, 'projects', ids);
    expect(ids.map((id) => stored.get(id))).toEqual([
      { [`${key}n`]: 12, [`${key}d`]: '2024-02-29', [`${key}b`]: true, [`${key}s`]: 'Small', [`${key}m`]: ['Alpha', 'Gamma'], [`${key}t`]: 'Ada' },
      { [`${key}n`]: 1.25, [`${key}d`]: '2024-12-31', [`${key}b`]: true, [`${key}s`]: 'Large', [`${key}m`]: ['Beta'], [`${key}t`]: 'x' },
      { [`${key}n`]: -300, [`${key}d`]: '2025-01-01', [`${key}b`]: false, [`${key}s`]: 'Small', [`${key}m`]: ['Alpha'], [`${key}t`]: 'y' },
      { [`${key}n`]: 2.5e-10, [`${key}d`]: '2025-06-30', [`${key}b`]: false, [`${key}s`]: 'Large', [`${key}m`]: ['Gamma', 'Beta'], [`${key}t`]: 'z' },
      { [`${key}n`]: 700, [`${key}d`]: '2025-02-28', [`${key}b`]: true, [`${key}s`]: 'Small', [`${key}m`]: ['Alpha'], [`${key}t`]: 'w' },
    ]);
    const download = parseCsv((await csvCurrentRecords(env.ctx.db, projectImport, admin)).csv.replace(/^\uFEFF/, ''));
    const written = ids.map((id) => download.rows.find((r) => r.cells[0] === id)!).map((r) => cf.map((name) => r.cells[download.header.indexOf(name)]));
    expect(written).toEqual([
      ['12', '2024-02-29', 'true', 'Small', 'Alpha|Gamma', 'Ada'],
      ['1.25', '2024-12-31', 'true', 'Large', 'Beta', 'x'],
      // Guarded against spreadsheet formulas; the import reads it back without the apostrophe.
      ["'-300", '2025-01-01', 'false', 'Small', 'Alpha', 'y'],
      ['2.5e-10', '2025-06-30', 'false', 'Large', 'Gamma|Beta', 'z'],
      ['700', '2025-02-28', 'true', 'Small', 'Alpha', 'w'],
    ]);

    // A blank custom cell on update clears the field, whatever its type.
    const cleared = await postCsv(env, projects, 'projects', `id,${cf.join(',')}\n${ids[0]},,,,,,\n`, 'apply');
    expect(rowAt(cleared.data, 2).changes, cleared.text).toEqual([
      { column: cf[0], old: '12', new: '' }, { column: cf[1], old: '2024-02-29', new: '' }, { column: cf[2], old: 'true', new: '' },
      { column: cf[3], old: 'Small', new: '' }, { column: cf[4], old: 'Alpha|Gamma', new: '' }, { column: cf[5], old: 'Ada', new: '' },
    ]);
    expect((await loadCustomFields(env.ctx.db, 'projects', [ids[0]])).get(ids[0]) ?? {}).toEqual({});
  });

  test('a risk row may link only an asset the importer can read, as a single write (rule 4)', async () => {
    const admin = await adminActor(env);
    const hidden = unique('Hidden asset');
    await env.ctx.db.transaction((tx) => createRecord(tx, assetKind, admin, { name: hidden }));
    const importer = await makeUser(env, { 'risks:create': 'all', 'risks:read': 'all', 'assets:read': 'own', 'assets:create': 'own', 'apiTokens:create': 'own' });
    const own = unique('Own asset');
    const importerActor = await importer.actor();
    await env.ctx.db.transaction((tx) => createRecord(tx, assetKind, importerActor, { name: own }));
    const secret = await makeToken(env, importerActor, ['risks:create', 'risks:read', 'assets:read']);
    const csv = `title,classification,inherent_likelihood,inherent_impact,asset\n${unique('R')},Operational,3,3,${hidden}\n${unique('R')},Operational,3,3,${own}\n`;
    const checked = await postCsv(env, secret, 'risks', csv, 'check');
    expect(rowAt(checked.data, 2).errors).toEqual([{ column: 'asset', message: `no asset named ${hidden}` }]);
    expect(rowAt(checked.data, 3).outcome).toBe('create');
  });

  test('unknown columns are reported and a repeated header is refused', async () => {
    const unknown = await postCsv(env, token, 'controls', 'name,colour\nA,red\n', 'check');
    expect(unknown.status).toBe(422);
    expect(unknown.error).toContain('Unknown column "colour"');
    const repeated = await postCsv(env, token, 'controls', 'name,description,Name\nA,b,c\n', 'check');
    expect(repeated.status).toBe(422);
    expect(repeated.error).toContain('repeats "Name"');
  });

  test('on update a blank cell clears optional columns and keeps those with defaults; the write is in History as an update', async () => {
    const name = unique('Clear me');
    const seed = await postCsv(env, token, 'controls', `name,description,type,owner,owner_group\n${name},Some text,technical,${owner.email},${groupName}\n`, 'apply');
    expect(seed.status, seed.text).toBe(200);
    const [before] = await env.ctx.db.select().from(controls).where(eq(controls.name, name));
    const res = await postCsv(env, token, 'controls', `id,name,description,type,owner\n${before.id},${name},,,\n`, 'apply', 'clear.csv');
    expect(res.status, res.text).toBe(200);
    expect(rowAt(res.data, 2).changes).toEqual([
      { column: 'description', old: 'Some text', new: '' },
      // The file names the owner by e-mail; the result by name, as the screens do.
      { column: 'owner', old: owner.email.split('@')[0], new: '' },
    ]);
    const [after] = await env.ctx.db.select().from(controls).where(eq(controls.id, before.id));
    expect([after.description, after.type, after.ownerId, after.ownerGroupId]).toEqual(['', 'technical', null, before.ownerGroupId]);
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    const entries = await env.ctx.db.select().from(history).where(eq(history.recordId, before.id));
    const update = entries.find((e) => e.action === 'update');
    expect(update?.source).toBe('CSV import of clear.csv');
    expect(Object.keys(update?.changes as object).sort()).toEqual(['description', 'ownerId']);
  });
});
