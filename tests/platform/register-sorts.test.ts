import { beforeAll, describe, expect, test } from 'bun:test';
import { asc, desc, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { groups, users } from '../../db/schema';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { createRecord, listRecords, type OwnedTable, type RecordKind } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { systemActor } from '../../src/platform/permissions/permissions';
import { createGroup } from '../../src/modules/people/service';
import { riskKind } from '../../src/modules/risks/service';
import { RiskListQuery } from '../../src/modules/risks/schema';
import { controlKind } from '../../src/modules/controls/service';
import { ControlListQuery } from '../../src/modules/controls/schema';
import { assetKind } from '../../src/modules/assets/service';
import { AssetListQuery } from '../../src/modules/assets/schema';
import { businessUnitKind } from '../../src/modules/businessUnits/service';
import { BusinessUnitListQuery } from '../../src/modules/businessUnits/schema';
import { incidentKind } from '../../src/modules/incidents/service';
import { IncidentListQuery } from '../../src/modules/incidents/schema';
import { projectKind } from '../../src/modules/projects/service';
import { ProjectListQuery } from '../../src/modules/projects/schema';
import { policyKind } from '../../src/modules/policies/service';
import { PolicyListQuery } from '../../src/modules/policies/schema';
import { thirdPartyKind } from '../../src/modules/thirdParties/service';
import { ThirdPartyListQuery } from '../../src/modules/thirdParties/schema';
import { programKind as reviewProgramKind } from '../../src/modules/accountReviews/service';
import { ProgramListQuery as ReviewProgramListQuery } from '../../src/modules/accountReviews/schema';
import { programKind as awarenessProgramKind } from '../../src/modules/awareness/service';
import { ProgramListQuery as AwarenessProgramListQuery } from '../../src/modules/awareness/schema';
import { auditPlanKind, findingKind } from '../../src/modules/audits/service';
import { AuditPlanListQuery, FindingListQuery } from '../../src/modules/audits/schema';
import { evidenceKind } from '../../src/modules/evidence/service';
import { EvidenceListQuery } from '../../src/modules/evidence/schema';
import { processingActivityKind } from '../../src/modules/dataPrivacy/service';
import { dpiaKind } from '../../src/modules/dataPrivacy/dpia-service';
import { tiaKind, transferKind } from '../../src/modules/dataPrivacy/transfer-service';
import { DpiaListQuery, ProcessingActivityListQuery, TiaListQuery, TransferListQuery } from '../../src/modules/dataPrivacy/schema';

/**
 * Every register list of the kit sorts by each column a person would sort (issue 26, deliverable 5): the header is a
 * link, the sort is in the URL, the REST list takes the same key, and the list comes back in that order both ways.
 * Columns left unsorted are few and named in docs/screens.md ("Sorting a register").
 */

interface Register {
  path: string;
  /** The REST list's query schema. */
  query: TObject;
  keys: string[];
  /** The ids of a page of the list (the admin's, unfiltered) sorted by `sort`. */
  listed(sort: string): Promise<string[]>;
  /** Where each record stands in the order the kind declares for `sort` (ranksOf). */
  ranks(sort: string, ids: string[]): Promise<number[]>;
}

/** A register of the table, typed by its own kind (kinds differ in inputs and views; the test reads what all have). */
function register<T extends OwnedTable, I extends Record<string, unknown>, V extends { id: string }>(path: string, kind: RecordKind<T, I, V>, query: TObject): Register {
  return {
    path, query, keys: Object.keys(kind.sortable),
    listed: async (sort) => (await listRecords(env.ctx.db, kind, actor, { sort, pageSize: 200 })).rows.map((r) => r.id),
    ranks: (sort, ids) => ranksOf(kind.table, kind.sortable[sort.replace(/^-/, '')], sort.startsWith('-'), ids),
  };
}

const REGISTERS: Register[] = [
  register('/risks', riskKind, RiskListQuery),
  register('/controls', controlKind, ControlListQuery),
  register('/assets', assetKind, AssetListQuery),
  register('/business-units', businessUnitKind, BusinessUnitListQuery),
  register('/incidents', incidentKind, IncidentListQuery),
  register('/projects', projectKind, ProjectListQuery),
  register('/policies', policyKind, PolicyListQuery),
  register('/third-parties', thirdPartyKind, ThirdPartyListQuery),
  register('/account-reviews', reviewProgramKind, ReviewProgramListQuery),
  register('/awareness/programs', awarenessProgramKind, AwarenessProgramListQuery),
  register('/audits', auditPlanKind, AuditPlanListQuery),
  register('/audits/findings', findingKind, FindingListQuery),
  register('/evidence', evidenceKind, EvidenceListQuery),
  register('/data-privacy/processing-activities', processingActivityKind, ProcessingActivityListQuery),
  register('/data-privacy/dpias', dpiaKind, DpiaListQuery),
  register('/data-privacy/transfers', transferKind, TransferListQuery),
  register('/data-privacy/transfer-impact-assessments', tiaKind, TiaListQuery),
];

/** The headers left unsorted on purpose (docs/screens.md says why): free text, a list of labels, a web address. */
const UNSORTED = new Set(['Description', 'Labels', 'Website']);

let env: TestEnv;
let admin: Browser;
let actor: Actor;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  actor = await adminActor(env);
});

/** The list's headers: each with the sort key its link asks for, if any. */
async function headersOf(path: string, query = 'q=no-such-record-anywhere'): Promise<{ header: string; sort?: string; way?: string }[]> {
  const res = await admin.get(`${path}?${query}`);
  const html = await res.text();
  expect(res.status, html.slice(0, 500)).toBe(200);
  const head = /<thead>([\s\S]*?)<\/thead>/.exec(html)?.[1] ?? '';
  return [...head.matchAll(/<th scope="col"( aria-sort="(\w+)")?>([\s\S]*?)<\/th>/g)].map(([, , way, inner]) => {
    const sort = /href="[^"]*[?&;]sort=(-?[\w]+)/.exec(inner)?.[1];
    const header = /<span>([^<]*)<\/span>/.exec(inner)?.[1] ?? inner.trim();
    return { header, sort: sort?.replace(/^-/, ''), way };
  });
}

/**
 * Where each listed record stands in the order the kind declares for `sort`, as PostgreSQL ranks it (its collation, its
 * nulls): a list sorted by it reads ranks that never go down.
 */
async function ranksOf(table: OwnedTable, key: AnyColumn | SQL, descending: boolean, ids: string[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await env.ctx.db.select({ id: table.id, rank: sql<number>`rank() over (order by ${descending ? desc(key) : asc(key)})`.mapWith(Number) })
    .from(table).leftJoin(users, eq(users.id, table.ownerId)).leftJoin(groups, eq(groups.id, table.ownerGroupId))
    .where(inArray(table.id, ids));
  const rank = new Map(rows.map((r) => [r.id, r.rank]));
  return ids.map((id) => rank.get(id)!);
}

const nonDecreasing = (values: number[]) => values.every((v, i) => i === 0 || values[i - 1] <= v);

describe('every register list sorts by the columns people sort', () => {
  for (const { path, query, keys, listed, ranks } of REGISTERS) {
    test(`${path}: each column's header sorts both ways, by a key the REST list takes too; only free text, labels and links stay unsorted`, async () => {
      const headers = await headersOf(path);
      expect(headers.length).toBeGreaterThan(1);
      const unsorted = headers.filter((h) => !h.sort).map((h) => h.header);
      expect(unsorted.filter((h) => !UNSORTED.has(h))).toEqual([]);
      const owner = headers.find((h) => h.header === 'Owner');
      expect(owner?.sort).toBe('owner');
      for (const { header, sort } of headers) {
        if (!sort) continue;
        expect(keys, `${path} ${header}`).toContain(sort);
        expect(Value.Check(query, { sort }), `${path} REST sort=${sort}`).toBe(true);
        expect(Value.Check(query, { sort: `-${sort}` }), `${path} REST sort=-${sort}`).toBe(true);
        // The sort is in the URL: the header says which way the list is sorted and offers the other.
        const ascending = (await headersOf(path, `q=no-such-record-anywhere&sort=${sort}`)).find((h) => h.header === header);
        expect(ascending?.way, `${path}?sort=${sort}`).toBe('ascending');
        const descending = (await headersOf(path, `q=no-such-record-anywhere&sort=-${sort}`)).find((h) => h.header === header);
        expect(descending?.way, `${path}?sort=-${sort}`).toBe('descending');
      }
    });

    test(`${path}: the list comes back in each sort key's order, ascending and descending`, async () => {
      for (const key of keys) {
        for (const sort of [key, `-${key}`]) {
          const ids = await listed(sort);
          expect(nonDecreasing(await ranks(sort, ids)), `${path} sort=${sort}`).toBe(true);
        }
      }
    });
  }
});

describe('what a sort means', () => {
  test('Owner sorts by the name people see, a person\'s or else the group\'s, whatever the case; not by id', async () => {
    const prefix = unique('OwnerSort');
    const people = await Promise.all(['zora', 'Mateo'].map((name) => makeUser(env, { 'controls:read': 'all' }, `${prefix} ${name}`)));
    const { id: groupId } = await env.ctx.db.transaction((tx) => createGroup(tx, systemActor(), { name: `${prefix} Anchor team` }));
    await env.ctx.db.transaction(async (tx) => {
      await createRecord(tx, controlKind, actor, { name: `${prefix} c1`, type: 'technical', ownerId: people[0].id });
      await createRecord(tx, controlKind, actor, { name: `${prefix} c2`, type: 'technical', ownerId: people[1].id });
      await createRecord(tx, controlKind, actor, { name: `${prefix} c3`, type: 'technical', ownerId: null, ownerGroupId: groupId });
    });
    const owners = async (sort: string) => (await listRecords(env.ctx.db, controlKind, actor, { q: prefix, sort })).rows.map((c) => c.owner?.name ?? c.ownerGroup?.name);
    expect(await owners('owner')).toEqual([`${prefix} Anchor team`, `${prefix} Mateo`, `${prefix} zora`]);
    expect(await owners('-owner')).toEqual([`${prefix} zora`, `${prefix} Mateo`, `${prefix} Anchor team`]);
    // The screen's Owner header asks for the same order, and says so.
    const page = await (await admin.get(`/controls?q=${encodeURIComponent(prefix)}&sort=owner`)).text();
    // The rows, after the filter bar (whose Owner choices name the people too).
    const html = page.slice(page.indexOf('<tbody>'));
    expect(html.indexOf(`${prefix} Anchor team`)).toBeLessThan(html.indexOf(`${prefix} Mateo`));
    expect(html.indexOf(`${prefix} Mateo`)).toBeLessThan(html.indexOf(`${prefix} zora`));
    expect(page).toContain(`<th scope="col" aria-sort="ascending"><a href="/controls?q=${encodeURIComponent(prefix)}&sort=-owner"`);
  });

  test('Status sorts in the statuses\' defined order (planned, active, retired), not alphabetically', async () => {
    const prefix = unique('StatusSort');
    await env.ctx.db.transaction(async (tx) => {
      for (const status of ['retired', 'active', 'planned'] as const) await createRecord(tx, controlKind, actor, { name: `${prefix} ${status}`, type: 'technical', status });
    });
    const statuses = async (sort: string) => (await listRecords(env.ctx.db, controlKind, actor, { q: prefix, sort })).rows.map((c) => c.status);
    expect(await statuses('status')).toEqual(['planned', 'active', 'retired']);
    expect(await statuses('-status')).toEqual(['retired', 'active', 'planned']);
    // Type likewise, in its list's order: policy, process, technical, physical, other.
    const types = await env.ctx.db.transaction(async (tx) => {
      for (const type of ['other', 'physical', 'policy'] as const) await createRecord(tx, controlKind, actor, { name: `${prefix} t-${type}`, type });
      return (await listRecords(tx, controlKind, actor, { q: `${prefix} t-`, sort: 'type' })).rows.map((c) => c.type);
    });
    expect(types).toEqual(['policy', 'physical', 'other']);
  });

  test('REST lists take the new keys and still refuse an unknown one, naming the keys they take; the screens ignore it', async () => {
    const token = await makeToken(env, actor, ['controls:read']);
    const auth = bearer(token);
    expect((await env.request('/api/v1/controls?sort=-owner', auth)).status).toBe(200);
    const refused = await env.request('/api/v1/controls?sort=password', auth);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe(
      'sort: must be one of name, -name, type, -type, status, -status, owner, -owner, createdAt, -createdAt, updatedAt, -updatedAt');
    // The screen keeps its behaviour: an unknown key falls back to the default order, the page still answers.
    const page = await admin.get('/controls?sort=password');
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain('aria-sort=');
  });
});
