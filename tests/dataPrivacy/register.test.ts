import { beforeAll, describe, expect, test } from 'bun:test';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, createdId } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { signedInBrowser } from '../helpers/browser';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { createLabel } from '../../src/modules/labels/service';
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

describe('the register narrowed by the one filter bar, and its Export following it', () => {
  const word = unique('Narrowed').replace(/\W/g, '');
  let labelId: string;
  let ownerId: string;
  let ownerName: string;
  beforeAll(async () => {
    labelId = (await env.ctx.db.transaction((tx) => createLabel(tx, admin, { name: unique('HR processing') }))).id;
    ownerName = unique('Register owner');
    ownerId = (await makeUser(env, {}, ownerName)).id;
    await create({ name: `${word} payroll`, role: 'controller', status: 'active', legalBasis: 'legal_obligation', labelIds: [labelId], ownerId });
    await create({ name: `${word} =cmd|' /C calc'!A0`, role: 'controller', status: 'draft', legalBasis: 'consent', processorThirdPartyIds: [] });
    await create({ name: `${word} hosting`, role: 'processor', status: 'active', legalBasis: 'contract', labelIds: [labelId] });
    await create({ name: `${word} archive`, role: 'controller', status: 'retired', legalBasis: 'consent', labelIds: [labelId] });
  });
  const names = async (query: string, secret = token) => {
    const res = await send('GET', `/api/v1/data-privacy/register?q=${word}${query}`, undefined, secret);
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { data: { entries: { name: string }[] }[] }).data.flatMap((s) => s.entries.map((e) => e.name));
  };

  test('the API narrows by words, role, status, legal basis, owner and label; retired activities stay out', async () => {
    expect(await names('')).toEqual([`${word} =cmd|' /C calc'!A0`, `${word} payroll`, `${word} hosting`]);
    expect(await names('&role=processor')).toEqual([`${word} hosting`]);
    expect(await names('&status=draft')).toEqual([`${word} =cmd|' /C calc'!A0`]);
    expect(await names('&legalBasis=legal_obligation')).toEqual([`${word} payroll`]);
    expect(await names(`&ownerId=${ownerId}`)).toEqual([`${word} payroll`]);
    expect(await names(`&label=${labelId}`)).toEqual([`${word} payroll`, `${word} hosting`]);
    expect((await send('GET', '/api/v1/data-privacy/register?status=retired')).status).toBe(400);
  });

  test('the CSV follows the same filters: BOM, formula-guarded, "(restricted)" names, the reader\'s level', async () => {
    const csv = async (path: string, secret = token, mark = word) => {
      const res = await send('GET', path, undefined, secret);
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      return new TextDecoder().decode(bytes).split('\r\n').filter((line) => line.includes(mark));
    };
    expect((await csv(`/api/v1/data-privacy/register/csv?q=${word}&label=${labelId}`)).map((l) => l.split(',')[0])).toEqual([`${word} payroll`, `${word} hosting`]);
    expect(await csv(`/api/v1/data-privacy/register/csv?q=${word}&status=draft`)).toEqual([expect.stringMatching(new RegExp(`^${word} =cmd`))]);
    // A name starting with = is written guarded, narrowed or not.
    expect(await csv(`/api/v1/data-privacy/register/csv?q=HYPERLINK&status=draft`, token, marker))
      .toEqual([expect.stringMatching(new RegExp(`^"'=HYPERLINK\\(""http://evil.example""\\) ${marker}",Controller,Draft,`))]);
    // The reader sees the processors they may not read as (restricted), narrowed as anyone else.
    const restricted = await csv(`/api/v1/data-privacy/register/csv?q=${marker}&role=controller&status=active`, reader.token, marker);
    expect(restricted).toEqual([expect.stringContaining(`,10 years,${assetName},(restricted),`)]);
    // At level own, a filter finds nothing beyond what the reader owns.
    const own = await makeUser(env, { 'dataPrivacy:read': 'own', 'apiTokens:create': 'own' });
    const ownToken = await makeToken(env, await own.actor(), ['dataPrivacy:read']);
    expect(await csv(`/api/v1/data-privacy/register/csv?q=${word}&label=${labelId}`, ownToken)).toEqual([]);
  });

  test('the screen has the one filter bar (Role, Status, Legal basis, Label, Owner) and an Export that follows it', async () => {
    const person = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const html = await (await person.get(`/data-privacy/register?q=${word}&label=${labelId}`)).text();
    expect(html).toContain('aria-label="Filter the Article 30 register"');
    for (const label of ['Search names', 'Role', 'Status', 'Legal basis', 'Label', 'Owner']) expect(html).toContain(`>${label}</label>`);
    expect(html).toContain('2 activities match these filters');
    expect(html).toContain(`href="/data-privacy/register.csv?q=${word}&label=${labelId}"`);
    expect(html).toContain(`href="/data-privacy/register/print?q=${word}&label=${labelId}"`);
    expect(html).not.toContain(`${word} =cmd`);
    const download = await person.get(`/data-privacy/register.csv?q=${word}&label=${labelId}`);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="article-30-register-/);
    const lines = (await download.text()).split('\r\n').filter((line) => line.includes(word));
    expect(lines.map((l) => l.split(',')[0])).toEqual([`${word} payroll`, `${word} hosting`]);
    expect(lines[0].endsWith(`,${ownerName}`)).toBe(true);
    // A filter the register does not know reads as not set on the screen, as on every list.
    expect(await (await person.get(`/data-privacy/register?q=${word}&role=nobody`)).text()).toContain('3 activities match these filters');
  });
});
