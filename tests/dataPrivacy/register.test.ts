import { beforeAll, describe, expect, test } from 'bun:test';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, createdId } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { signedInBrowser } from '../helpers/browser';
import { articleThirtyRegister, registerCsvChunks } from '../../src/modules/dataPrivacy/register';

const PRIVACY: Permission[] = ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update', 'dataPrivacy:delete'];
const PATH = '/api/v1/data-privacy/processing-activities';

let env: TestEnv;
let admin: Actor;
let token: string;
let marker: string;
let vendorName: string;
let assetName: string;
let reader: { token: string; groupId: string };

const send = apiSender(() => env, () => token);
const created = createdId;
const create = (body: Record<string, unknown>) => send('POST', PATH, body).then(created);

/** The register's CSV rows that belong to this test file (the database is shared by the file's tests). */
const csvRows = (text: string) => text.split('\r\n').filter((line) => line.includes(marker));

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [...PRIVACY, 'assets:read', 'assets:create', 'thirdParties:read', 'thirdParties:create']);
  marker = unique('Register');
  vendorName = unique('Cloud payroll bureau');
  assetName = unique('HR system');
  const vendor = await send('POST', '/api/v1/third-parties', { name: vendorName }).then(created);
  const system = await send('POST', '/api/v1/assets', { name: assetName }).then(created);
  // A reader of every processing activity, of the assets, but of no third party they do not own.
  const user = await makeUser(env, { 'dataPrivacy:read': 'all', 'assets:read': 'all', 'thirdParties:read': 'own', 'apiTokens:create': 'own' });
  reader = { token: await makeToken(env, await user.actor(), ['dataPrivacy:read', 'assets:read', 'thirdParties:read']), groupId: user.groupId };
  await create({
    name: `${marker} payroll`, role: 'controller', status: 'active', legalBasis: 'legal_obligation', purposes: 'Paying salaries',
    dataSubjectCategories: ['employees'], personalDataCategories: ['financial', 'health_data'], specialCategoryCondition: 'employment_and_social_security',
    systemAssetIds: [system], processorThirdPartyIds: [vendor], retention: '10 years',
  });
  await create({ name: `=HYPERLINK("http://evil.example") ${marker}`, role: 'controller', legalBasis: 'consent', purposes: '+SUM(A1)' });
  await create({ name: `${marker} hosting for clients`, role: 'processor', status: 'active', legalBasis: 'contract' });
  await create({ name: `${marker} old newsletter`, role: 'controller', status: 'retired', legalBasis: 'consent' });
  await create({ name: `${marker} group's own`, role: 'processor', legalBasis: 'contract', ownerId: null, ownerGroupId: user.groupId });
});

describe('the Article 30 register', () => {
  test('groups the processing activities by role, controller first, leaving retired ones out, with labels and linked names', async () => {
    const res = await send('GET', '/api/v1/data-privacy/register');
    expect(res.status, await res.clone().text()).toBe(200);
    const sections = ((await res.json()) as { data: { role: string; heading: string; entries: Record<string, string>[] }[] }).data;
    expect(sections.map((s) => s.heading)).toEqual(['As controller (Art. 30(1))', 'As processor (Art. 30(2))']);
    const ours = (role: string) => sections.find((s) => s.role === role)!.entries.filter((e) => e.name.includes(marker)).map((e) => e.name);
    expect(ours('controller')).toEqual([`${marker} payroll`, `=HYPERLINK("http://evil.example") ${marker}`].sort());
    expect(ours('processor')).toEqual([`${marker} group's own`, `${marker} hosting for clients`]);
    const payroll = sections[0].entries.find((e) => e.name === `${marker} payroll`)!;
    expect(payroll).toMatchObject({
      legalBasis: 'Legal obligation', specialCategoryCondition: 'Employment and social security', dataSubjectCategories: 'Employees',
      personalDataCategories: 'Financial; Health data', systems: assetName, processors: vendorName, status: 'Active', owner: expect.any(String),
    });
  });

  test('the CSV download has a byte order mark, guards formulas and names the processors a reader may not read "(restricted)"', async () => {
    const res = await send('GET', '/api/v1/data-privacy/register/csv', undefined, reader.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="article-30-register-\d{4}-\d{2}-\d{2}\.csv"$/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes); // the decoder drops the BOM
    expect(text.split('\r\n')[0]).toBe('Processing activity,Role,Status,Purposes,Legal basis (Art. 6),Art. 9 condition,Categories of data subjects,'
      + 'Categories of personal data,Recipients,Retention,Systems,Processors,Joint controllers,Technical and organisational measures,'
      + 'Technical and organisational measures (controls),Owner');
    const rows = csvRows(text);
    const payroll = rows.find((row) => row.startsWith(`${marker} payroll,`))!;
    expect(payroll).toContain(`,10 years,${assetName},(restricted),`);
    expect(payroll).not.toContain(vendorName);
    expect(rows.some((row) => row.startsWith(`"'=HYPERLINK(""http://evil.example"") ${marker}",Controller,Draft,'+SUM(A1),Consent,`))).toBe(true);
    expect(rows.some((row) => row.includes('old newsletter'))).toBe(false);
  });

  test('is filtered by the reader\'s level: at level own, only what they or their groups own', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'own', 'apiTokens:create': 'own' });
    const ownToken = await makeToken(env, await user.actor(), ['dataPrivacy:read']);
    await create({ name: `${marker} owned by the own reader`, legalBasis: 'consent', ownerId: null, ownerGroupId: user.groupId });
    const text = await (await send('GET', '/api/v1/data-privacy/register/csv', undefined, ownToken)).text();
    expect(csvRows(text).map((row) => row.split(',')[0])).toEqual([`${marker} owned by the own reader`]);
    const risksOnly = await makeToken(env, admin, ['risks:read']);
    expect(await refusalOf(env, () => send('GET', '/api/v1/data-privacy/register/csv', undefined, risksOnly)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:read missing'));
  });

  test('the screen, the printable page and the download answer a signed-in reader with what the API answers', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'all', 'assets:read': 'all', 'thirdParties:read': 'own' });
    const person = await signedInBrowser(env, user.email, user.password);
    const screen = await (await person.get('/data-privacy/register')).text();
    expect(screen).toContain('As controller (Art. 30(1))');
    expect(screen).toContain(`${marker} payroll`);
    expect(screen).toContain('(restricted)');
    expect(screen).not.toContain(vendorName);
    expect(screen).not.toContain('old newsletter');
    const print = await (await person.get('/data-privacy/register/print')).text();
    expect(print).toContain('Records of processing activities (GDPR Article 30)');
    expect(print).toContain(`${marker} hosting for clients`);
    expect(print).not.toContain('<nav');
    const download = await person.get('/data-privacy/register.csv');
    expect(download.headers.get('content-type')).toContain('text/csv');
    const rows = csvRows(await download.text());
    expect(rows.find((row) => row.startsWith(`${marker} payroll,`))).toContain('(restricted)');
    const stranger = await signedInBrowser(env, (await makeUser(env, { 'risks:read': 'all' })).email, 'a long enough password');
    expect((await stranger.get('/data-privacy/register')).status).toBe(403);
  });

  test('the CSV is read page by page: with pages of two activities it holds every entry once, in the register\'s order, header first', async () => {
    const entries = (await articleThirtyRegister(env.ctx.db, admin)).flatMap((section) => section.entries);
    const chunks: string[] = [];
    for await (const chunk of registerCsvChunks(env.ctx.db, admin, 2)) chunks.push(chunk);
    // The header, then one chunk per page of two (the last may hold one).
    expect(chunks.length).toBe(1 + Math.ceil(entries.length / 2));
    expect(chunks[0].startsWith('\uFEFFProcessing activity,Role,')).toBe(true);
    const lines = chunks.slice(1).join('').split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(entries.length);
    // Each row starts with its activity's name as the CSV writes it (quoted and formula-guarded where needed).
    const written = (name: string) => (/^[=+\-@\t\r]/.test(name) ? `'${name}` : name);
    lines.forEach((line, i) => {
      const name = written(entries[i].name);
      expect(line.startsWith(/[",;\r\n]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name), `row ${i}`).toBe(true);
    });
  });
});
