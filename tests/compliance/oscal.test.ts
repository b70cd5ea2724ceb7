import { beforeAll, describe, expect, test } from 'bun:test';
import { count, eq } from 'drizzle-orm';
import { complianceAnalyses, compliancePackages } from '../../db/schema';
import { exportPackage } from '../../src/modules/compliance/packages-service';
import { OSCAL_NS, readOscal, readOscalText } from '../../src/modules/compliance/oscal';
import type { PackageInput, PackageItem, PackageView } from '../../src/modules/compliance/schema';
import { SHIPPED_PACKAGES, loadShippedPackage } from '../../src/modules/compliance/shipped';
import { nistCode } from '../../scripts/build-packages';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { nistOscalText, oscalCatalogValidator } from '../helpers/oscal';

/**
 * OSCAL catalogs in and out of compliance packages (docs/compliance-packages.md, "OSCAL catalogs"): the NIST moderate
 * baseline imports as the shipped package's tree with the OSCAL ids as codes; an exported package meets NIST's OSCAL
 * 1.1.2 catalog JSON Schema and imports back as the same package; bad files are refused naming why, nothing written.
 */

const nistText = nistOscalText;
const validateCatalog = oscalCatalogValidator();

let env: TestEnv;
let token: string;
let readOnly: string;
beforeAll(async () => {
  env = await testEnv();
  const admin = await adminActor(env);
  token = await makeToken(env, admin, ['compliance:read', 'compliance:create']);
  readOnly = await makeToken(env, admin, ['compliance:read']);
});

const PATH = '/api/v1/compliance/packages';
const postOscal = (body: string, { secret = token, contentType = 'application/oscal+json', query = '' } = {}) =>
  env.request(`${PATH}${query}`, bearer(secret, { method: 'POST', body, headers: { 'content-type': contentType } }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const totalPackages = async () => (await env.ctx.db.select({ n: count() }).from(compliancePackages))[0].n;

/** A small hand-written catalog with the cases a real one has: nested groups, enhancements, withdrawn controls, parameters. */
const handWritten = () => ({
  catalog: {
    uuid: '8f7c2f0e-3a4b-4c5d-8e6f-7a8b9c0d1e2f',
    metadata: { title: 'Edge case catalog', 'last-modified': '2026-01-01T00:00:00Z', version: '1.0', 'oscal-version': '1.1.2', remarks: 'For the import tests' },
    params: [{ id: 'freq', values: ['every 90 days'] }],
    controls: [{ id: 'top-1', title: 'A control outside any group', parts: [{ name: 'statement', prose: 'Review access {{ insert: param, freq }}.' }] }],
    groups: [{
      id: 'org',
      title: 'Organisation',
      groups: [{
        id: 'org.people',
        title: 'People',
        controls: [
          {
            id: 'ppl-1',
            title: 'Screening',
            params: [
              { id: 'ppl-1_prm_1', label: 'personnel or roles' },
              { id: 'ppl-1_prm_2', select: { 'how-many': 'one-or-more', choice: ['before hire', 'yearly', 'at {{ insert: param, ppl-1_prm_3 }} '] } },
              { id: 'ppl-1_prm_3', label: 'organization-defined events' },
            ],
            parts: [
              { name: 'statement', parts: [
                { name: 'item', props: [{ name: 'label', value: 'a.' }], prose: 'Screen {{ insert: param, ppl-1_prm_1 }} {{ insert: param, ppl-1_prm_2 }}; and' },
                { name: 'item', props: [{ name: 'label', value: 'b.' }], prose: 'Record the results:', parts: [
                  { name: 'item', props: [{ name: 'label', value: '1.' }], prose: 'in the file;' },
                  { name: 'item', props: [{ name: 'label', value: '2.' }], prose: 'with the date.' },
                ] },
              ] },
              { name: 'guidance', prose: 'Not part of the requirement text.' },
            ],
            controls: [{ id: 'ppl-1.1', title: 'Rescreening', parts: [{ name: 'statement', prose: 'Rescreen on a change of role.' }] }],
          },
          { id: 'ppl-2', title: 'Withdrawn', props: [{ name: 'status', value: 'withdrawn' }], controls: [
            { id: 'ppl-2.1', title: 'Withdrawn too', props: [{ name: 'status', value: 'withdrawn' }] },
            { id: 'ppl-2.2', title: 'Kept under a withdrawn control', parts: [{ name: 'statement', prose: 'Still applies.' }] },
          ] },
        ],
      }],
    }],
  },
});

describe('OSCAL catalog import', () => {
  test('the NIST moderate baseline reads as the shipped package: 18 headings and 287 requirements, same names, texts and tree, OSCAL ids as codes', () => {
    const { input, problems, withdrawn } = readOscalText(nistText());
    expect(problems).toEqual([]);
    expect(withdrawn).toBe(0);
    const items = input!.items;
    expect(items.filter((i) => i.kind === 'heading')).toHaveLength(18);
    expect(items.filter((i) => i.kind === 'requirement')).toHaveLength(287);
    expect(items.find((i) => i.code === 'ac-2.1')).toMatchObject({ name: 'Automated System Account Management', parentCode: 'ac-2', kind: 'requirement' });
    expect(input).toMatchObject({ name: 'NIST Special Publication 800-53 Revision 5.1.1 MODERATE IMPACT BASELINE', version: '5.1.1+u4' });
    // The shipped package was built from the same file with SP 800-53's printed identifiers (AC, AC-2(1)) as codes.
    const shipped = loadShippedPackage(SHIPPED_PACKAGES.find((s) => s.key === 'nist-800-53-rev5-moderate')!);
    const printed = (code: string) => (/^[a-z]{2}$/.test(code) ? code.toUpperCase() : nistCode(code));
    const asPrinted: PackageItem[] = items.map((i) => ({ ...i, code: printed(i.code), parentCode: i.parentCode ? printed(i.parentCode) : null }));
    expect(asPrinted).toEqual(shipped.items);
    const ac2 = items.find((i) => i.code === 'ac-2')!.description!;
    expect(ac2).toContain('c. Require [Assignment: organization-defined prerequisites and criteria] for group and role membership;');
    expect(ac2).toContain('d. Specify:\n  1. Authorized users of the system;');
  });

  test('a hand-written catalog: nested groups nest headings, enhancements sit under their control, withdrawn controls are left out, parameters are resolved', () => {
    const { input, problems, withdrawn } = readOscal(handWritten());
    expect(problems).toEqual([]);
    expect(withdrawn).toBe(2);
    expect(input).toEqual({
      name: 'Edge case catalog', standard: '', version: '1.0', description: 'For the import tests',
      items: [
        { code: 'top-1', name: 'A control outside any group', description: 'Review access every 90 days.', parentCode: null, kind: 'requirement' },
        { code: 'org', name: 'Organisation', description: '', parentCode: null, kind: 'heading' },
        { code: 'org.people', name: 'People', description: '', parentCode: 'org', kind: 'heading' },
        {
          code: 'ppl-1', name: 'Screening', parentCode: 'org.people', kind: 'requirement',
          description: 'a. Screen [Assignment: organization-defined personnel or roles] [Selection (one or more): before hire; yearly; at [Assignment: organization-defined events]]; and\n'
            + 'b. Record the results:\n  1. in the file;\n  2. with the date.',
        },
        { code: 'ppl-1.1', name: 'Rescreening', description: 'Rescreen on a change of role.', parentCode: 'ppl-1', kind: 'requirement' },
        { code: 'ppl-2.2', name: 'Kept under a withdrawn control', description: 'Still applies.', parentCode: 'org.people', kind: 'requirement' },
      ],
    });
  });

  test('POST with the OSCAL media type imports the moderate baseline with one analysis per requirement', async () => {
    const res = await postOscal(nistText());
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await json<{ id: string }>(res);
    const pkg = await json<PackageView>(await env.request(`${PATH}/${id}`, bearer(token)));
    expect(pkg.itemCounts).toEqual({ total: 305, requirement: 287, additional: 0, heading: 18 });
    const [{ n }] = await env.ctx.db.select({ n: count() }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id));
    expect(n).toBe(287);
  });

  test('?format=oscal imports an OSCAL catalog sent as application/json; the package is owned by the importer', async () => {
    const doc = handWritten();
    doc.catalog.metadata.title = unique('Flagged catalog');
    const res = await postOscal(JSON.stringify(doc), { contentType: 'application/json', query: '?format=oscal' });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await json<{ id: string }>(res);
    const admin = await adminActor(env);
    const exported = await exportPackage(env.ctx.db, admin, id);
    expect(exported.name).toBe(doc.catalog.metadata.title);
    const [stored] = await env.ctx.db.select().from(compliancePackages).where(eq(compliancePackages.id, id));
    expect(stored.ownerId).toBe(admin.userId);
    expect(exported.items.map((i) => i.code)).toEqual(['top-1', 'org', 'org.people', 'ppl-1', 'ppl-1.1', 'ppl-2.2']);
  });
});

describe('OSCAL import refusals: 400 naming the problem, nothing written', () => {
  const refused = async (body: string, error: string, options: Parameters<typeof postOscal>[1] = {}) => {
    const before = await totalPackages();
    expect(await refusalOf(env, () => postOscal(body, options))).toEqual(refusedWith(400, error));
    expect(await totalPackages()).toBe(before);
  };

  test('malformed JSON', async () => {
    const parse = (() => { try { JSON.parse('{"catalog": '); } catch (e) { return (e as Error).message; } })();
    await refused('{"catalog": ', `package refused (1 problem): file: is not valid JSON (${parse})`);
  });

  test('JSON that is not OSCAL', async () => {
    await refused(JSON.stringify({ name: 'x', items: [] }),
      'package refused (1 problem): file: is not an OSCAL document: expected a JSON object whose top-level key is "catalog" (an OSCAL catalog or a resolved profile catalog)');
    await refused('[1, 2]',
      'package refused (1 problem): file: is not an OSCAL document: expected a JSON object whose top-level key is "catalog" (an OSCAL catalog or a resolved profile catalog)');
  });

  test('an OSCAL profile whose imports cannot be resolved offline', async () => {
    const profile = { profile: { uuid: '0f2a1c9e-1d2b-4c3d-9e4f-5a6b7c8d9e0f', metadata: { title: 'Moderate' }, imports: [{ href: 'https://example.org/NIST_SP-800-53_rev5_catalog.json', 'include-all': {} }] } };
    await refused(JSON.stringify(profile), 'package refused (1 problem): profile: is an OSCAL profile, not a catalog: its imports (https://example.org/NIST_SP-800-53_rev5_catalog.json) '
      + "cannot be resolved offline. Resolve the profile into a catalog first (for example with NIST's oscal-cli: profile resolve) and import the resolved catalog");
  });

  test('another OSCAL model', async () => {
    await refused(JSON.stringify({ 'system-security-plan': { uuid: 'x' } }),
      'package refused (1 problem): system-security-plan: is an OSCAL system-security-plan document, not a catalog; only catalogs (and resolved profile catalogs) import as packages');
  });

  test('a catalog of more than 10,000 controls', async () => {
    const controls = Array.from({ length: 10_001 }, (_, i) => ({ id: `c-${i}`, title: `Control ${i}` }));
    const body = JSON.stringify({ catalog: { uuid: '8f7c2f0e-3a4b-4c5d-8e6f-7a8b9c0d1e2f', metadata: { title: 'Too large' }, controls } });
    await refused(body, 'package refused (1 problem): catalog: holds more than 10,000 controls (10,001 counted before stopping); a package holds at most 10,000 items');
  });

  test('a statement inserting a parameter the catalog does not define, with the place named', async () => {
    const doc = handWritten();
    doc.catalog.controls[0].parts[0].prose = 'Review {{ insert: param, nowhere }}.';
    await refused(JSON.stringify(doc), 'package refused (1 problem): catalog.controls[0].statement: inserts the parameter nowhere, which the catalog does not define');
  });

  test('an OSCAL catalog sent as package JSON (no media type, no flag) is refused saying how to send it', async () => {
    await refused(JSON.stringify(handWritten()),
      'package refused (1 problem): body: is an OSCAL catalog document: send it with Content-Type application/oscal+json or with ?format=oscal',
      { contentType: 'application/json' });
  });

  test('a token without compliance:create is refused before the file is read', async () => {
    expect(await refusalOf(env, () => postOscal('not json', { secret: readOnly })))
      .toEqual(refusedWith(403, 'forbidden', 'token scope compliance:create missing'));
  });
});

describe('OSCAL catalog export', () => {
  for (const shipped of SHIPPED_PACKAGES) {
    test(`${shipped.label}: the export meets NIST's OSCAL 1.1.2 catalog schema and imports back as the same package`, async () => {
      const original = loadShippedPackage(shipped);
      const created = await env.request(PATH, bearer(token, { method: 'POST', body: JSON.stringify(original) }));
      expect(created.status).toBe(201);
      const { id } = await json<{ id: string }>(created);

      const res = await env.request(`${PATH}/${id}/export/oscal`, bearer(token));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/oscal+json; charset=utf-8');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[a-z0-9-]+-oscal\.json"$/);
      const text = await res.text();
      const document = JSON.parse(text) as { catalog: { metadata: Record<string, unknown> } };
      expect(validateCatalog(document), JSON.stringify(validateCatalog.errors?.slice(0, 5))).toBe(true);
      expect(document.catalog.metadata).toMatchObject({ title: original.name, version: original.version, 'oscal-version': '1.1.2' });

      const again = await postOscal(text);
      expect(again.status, await again.clone().text()).toBe(201);
      const copy = await exportPackage(env.ctx.db, await adminActor(env), (await json<{ id: string }>(again)).id);
      expect(copy).toEqual(original as PackageInput);
    });
  }

  test('codes that are not OSCAL ids, kinds, blank versions and headings under requirements survive the round trip', async () => {
    const odd: PackageInput = {
      name: unique('Odd package'), standard: '', version: '', description: 'Line one\n\nLine two',
      items: [
        { code: 'R 1', name: 'Requirement before its heading', description: '', parentCode: '§ 2', kind: 'requirement' },
        { code: '§ 2', name: 'Heading', description: 'Heading text', parentCode: null, kind: 'heading' },
        { code: '1', name: 'Starts with a digit', description: 'a. one\n  1. nested', parentCode: null, kind: 'additional' },
        { code: 'R-1', name: 'Collides with the id made for "R 1"', description: '', parentCode: '1', kind: 'requirement' },
        { code: 'H', name: 'Heading under a requirement', description: '', parentCode: 'R-1', kind: 'heading' },
      ],
    };
    const created = await env.request(PATH, bearer(token, { method: 'POST', body: JSON.stringify(odd) }));
    const { id } = await json<{ id: string }>(created);
    const text = await (await env.request(`${PATH}/${id}/export/oscal`, bearer(token))).text();
    const document = JSON.parse(text) as { catalog: { controls: { id: string; props: { name: string; ns?: string; value: string }[] }[] } };
    expect(validateCatalog(document), JSON.stringify(validateCatalog.errors?.slice(0, 5))).toBe(true);
    const top = document.catalog.controls.find((c) => c.props.some((p) => p.name === 'label' && p.value === '1'))!;
    expect(top.id).toBe('_1');
    expect(top.props).toContainEqual({ name: 'code', ns: OSCAL_NS, value: '1' });
    const again = await postOscal(text);
    expect(again.status, await again.clone().text()).toBe(201);
    expect(await exportPackage(env.ctx.db, await adminActor(env), (await json<{ id: string }>(again)).id)).toEqual(odd);
  });

  test('a package that does not exist is not exported', async () => {
    expect(await refusalOf(env, () => env.request(`${PATH}/${crypto.randomUUID()}/export/oscal`, bearer(token))))
      .toEqual(refusedWith(404, 'Compliance package <id> not found'));
  });
});
