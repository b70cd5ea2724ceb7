import { and, asc, eq, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { groups, privacyDataSubjectCategories, privacyPersonalDataCategories, processingActivities, users } from '../../../db/schema';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { levelOf, requirePermission, type Actor } from '../../platform/permissions/permissions';
import { readPermission, recordType, type RecordTypeDeclaration } from '../../platform/records/record-types';
import { RESTRICTED_NAME } from '../../platform/records/links';
import { valueLabel } from '../../platform/core/value-labels';
import { csvLine } from '../../platform/csv/write';
import { escapeLike } from '../../platform/records/records';
import { labelFilter } from '../../platform/records/labels';
import { LINKED_TYPES } from './service';
import { LEGAL_BASES, PROCESSING_ROLES, PROCESSING_STATUSES } from './schema';

/** One processing activity as the Article 30 register shows it: labels, not keys; linked records named as the reader may see them. */
export interface RegisterEntry {
  id: string;
  name: string;
  role: string;
  status: string;
  purposes: string;
  legalBasis: string;
  specialCategoryCondition: string;
  dataSubjectCategories: string;
  personalDataCategories: string;
  recipients: string;
  retention: string;
  systems: string;
  processors: string;
  jointControllers: string;
  securityMeasures: string;
  /** The technical and organisational measures as controls (Art. 32), named as the reader may see them. */
  controls: string;
  owner: string;
}

export interface RegisterSection {
  role: (typeof PROCESSING_ROLES)[number];
  /** "Controller (Art. 30(1))". */
  heading: string;
  entries: RegisterEntry[];
}

export const ROLE_HEADINGS: Record<(typeof PROCESSING_ROLES)[number], string> = {
  controller: 'As controller (Art. 30(1))',
  processor: 'As processor (Art. 30(2))',
};

/** Where a page of the register starts: after this entry in register order (role, name, id). */
export interface RegisterKey {
  role: string;
  name: string;
  id: string;
}

/**
 * The names of the records of a linked type the activities of `page` list, in the order listed, as the reader may see
 * them: "(restricted)" where they may not read one (its module's read right at their level), "(deleted)" for a record
 * gone since. Set-based: one hash join of every link of the page with the linked table, grouped by activity. (A
 * lookup per link inside each row is estimated so dear that PostgreSQL compiles the statement with JIT first: 5 s
 * before the first row; naming the links in the service afterwards cost more than the statement itself, in mapping
 * 40,000 ids.) Assets, third parties and controls live in one table each (no `join` in their declarations).
 */
function linkedNames(actor: Actor, type: RecordTypeDeclaration, column: string): SQL {
  const read = readPermission(type);
  const readable = levelOf(actor, read) === null ? sql`false` : ownershipCondition(actor, read, type.ownerId, type.ownerGroupId) ?? sql`true`;
  return sql`select p.id, string_agg(case when ${type.id} is null then '(deleted)' when ${readable} then ${type.title} else ${RESTRICTED_NAME} end, '; ' order by u.ord) as names
    from page p cross join lateral unnest(p.${sql.identifier(column)}) with ordinality u(id, ord) left join ${type.table} on ${type.id} = u.id group by p.id`;
}

/** The page's categories by the names the Settings lists give them now (the stored key where an entry is gone). */
function categoryNames(list: typeof privacyDataSubjectCategories | typeof privacyPersonalDataCategories, column: string): SQL {
  return sql`select p.id, string_agg(coalesce(${list.name}, u.key), '; ' order by u.ord) as names
    from page p cross join lateral unnest(p.${sql.identifier(column)}) with ordinality u(key, ord) left join ${list} on ${list.key} = u.key group by p.id`;
}

/**
 * The one statement the register reads: every processing activity the reader may read (dataPrivacy:read; own level:
 * those they or their groups own), retired ones left out, in register order, with owners, categories and linked
 * records named. Given `ids`, only those activities (a page of the CSV, which streams the register page by page).
 */
export function registerStatement(actor: Actor, ids?: readonly string[], narrow: RegisterNarrowing = {}): SQL {
  const a = processingActivities;
  const readable = ownershipCondition(actor, 'dataPrivacy:read', a.ownerId, a.ownerGroupId);
  const only = ids ? inArray(a.id, [...ids]) : narrowing(narrow);
  // Each part is materialized, so whatever the planner expects of the page, each is computed once.
  return sql`with page as materialized (
      select ${a}.* from ${a}
      where ${and(readable, sql`${a.status} <> 'retired'`, only)}
    ),
    subjects as materialized (${categoryNames(privacyDataSubjectCategories, a.dataSubjectCategories.name)}),
    categories as materialized (${categoryNames(privacyPersonalDataCategories, a.personalDataCategories.name)}),
    systems as materialized (${linkedNames(actor, recordType(LINKED_TYPES.systemAssetIds), a.systemAssetIds.name)}),
    processors as materialized (${linkedNames(actor, recordType(LINKED_TYPES.processorThirdPartyIds), a.processorThirdPartyIds.name)}),
    measures as materialized (${linkedNames(actor, recordType(LINKED_TYPES.controlIds), a.controlIds.name)})
    select page.id::text as id, page.name, page.role, page.status, page.purposes, page.legal_basis as "legalBasis",
      page.special_category_condition as "specialCategoryCondition", coalesce(subjects.names, '') as "dataSubjectCategories",
      coalesce(categories.names, '') as "personalDataCategories", page.recipients, page.retention, coalesce(systems.names, '') as systems,
      coalesce(processors.names, '') as processors, page.joint_controllers as "jointControllers", page.security_measures as "securityMeasures",
      coalesce(measures.names, '') as controls, coalesce(${users.name}, ${groups.name}, '') as owner
    from page
      left join subjects on subjects.id = page.id left join categories on categories.id = page.id
      left join systems on systems.id = page.id left join processors on processors.id = page.id left join measures on measures.id = page.id
      left join ${users} on ${users.id} = page.owner_id left join ${groups} on ${groups.id} = page.owner_group_id
    order by page.role, page.name, page.id`;
}

/** A row as the statement answers it: the register's entry with the stored keys of role, status, basis and condition. */
type RegisterRow = Omit<RegisterEntry, 'specialCategoryCondition'> & { specialCategoryCondition: string | null };

const registerRows = (db: DbOrTx, actor: Actor, ids?: readonly string[], narrow: RegisterNarrowing = {}) =>
  selectRows<RegisterRow>(db, registerStatement(actor, ids, narrow));

/**
 * The ids of the next page of the register, in register order after `after`. A page is chosen apart from the statement
 * that names it: with the keyset condition inside, PostgreSQL expected one row and joined the names once per activity
 * (5.8 s for a page of 500); a list of ids it estimates right.
 */
async function registerPageIds(db: DbOrTx, actor: Actor, after: RegisterKey | undefined, limit: number, narrow: RegisterNarrowing = {}): Promise<RegisterKey[]> {
  const a = processingActivities;
  const readable = ownershipCondition(actor, 'dataPrivacy:read', a.ownerId, a.ownerGroupId);
  const next = after ? sql`(${a.role}, ${a.name}, ${a.id}) > (${after.role}, ${after.name}, ${after.id}::uuid)` : undefined;
  return db.select({ id: a.id, role: a.role, name: a.name }).from(a)
    .where(and(
      readable, sql`${a.status} <> 'retired'`, next, narrowing(narrow),
    )).orderBy(asc(a.role), asc(a.name), asc(a.id)).limit(limit);
}

/** What the register may be narrowed to (the screen's filter bar, its CSV download, the Report Center's filters). */
export interface RegisterNarrowing {
  role?: (typeof PROCESSING_ROLES)[number];
  status?: (typeof PROCESSING_STATUSES)[number];
  legalBasis?: (typeof LEGAL_BASES)[number];
  ownerId?: string;
  ownerGroupId?: string;
  /** A label's id: the activities carrying it. */
  label?: string;
  /** Words of the activity's name. */
  q?: string;
}

/** The narrowing as one condition on the activities (undefined: none). */
function narrowing(narrow: RegisterNarrowing): SQL | undefined {
  const a = processingActivities;
  const words = narrow.q?.trim();
  return and(
    narrow.role ? eq(a.role, narrow.role) : undefined,
    narrow.status ? eq(a.status, narrow.status) : undefined,
    narrow.legalBasis ? eq(a.legalBasis, narrow.legalBasis) : undefined,
    narrow.ownerId ? eq(a.ownerId, narrow.ownerId) : undefined,
    narrow.ownerGroupId ? eq(a.ownerGroupId, narrow.ownerGroupId) : undefined,
    narrow.label ? labelFilter(a.labelIds)(narrow.label) : undefined,
    words ? ilike(a.name, `%${escapeLike(words)}%`) : undefined,
  );
}

/** Labels for the stored keys; everything else the statement already words. */
const entryOf = (row: RegisterRow): RegisterEntry => ({
  ...row,
  role: valueLabel(row.role),
  status: valueLabel(row.status),
  legalBasis: valueLabel(row.legalBasis),
  specialCategoryCondition: row.specialCategoryCondition ? valueLabel(row.specialCategoryCondition) : '',
});

/**
 * The Article 30 register: every processing activity the reader may read, grouped by role, by name. Systems and
 * processors are named only where the reader may read them ("(restricted)" otherwise, "(deleted)" for a record gone
 * since). Retired activities are left out: the register lists the processing that is carried out (drafts are shown,
 * marked as such).
 */
export async function articleThirtyRegister(db: DbOrTx, actor: Actor, narrow: RegisterNarrowing = {}): Promise<RegisterSection[]> {
  const rows = await registerRows(db, actor, undefined, narrow);
  return PROCESSING_ROLES.map((role) => ({
    role, heading: ROLE_HEADINGS[role], entries: rows.filter((row) => row.role === role).map(entryOf),
  }));
}

/** The register's columns, in the order of Art. 30(1): headers of the CSV download and of the printable page. */
export const REGISTER_COLUMNS: readonly { key: keyof RegisterEntry; header: string }[] = [
  { key: 'name', header: 'Processing activity' },
  { key: 'role', header: 'Role' },
  { key: 'status', header: 'Status' },
  { key: 'purposes', header: 'Purposes' },
  { key: 'legalBasis', header: 'Legal basis (Art. 6)' },
  { key: 'specialCategoryCondition', header: 'Art. 9 condition' },
  { key: 'dataSubjectCategories', header: 'Categories of data subjects' },
  { key: 'personalDataCategories', header: 'Categories of personal data' },
  { key: 'recipients', header: 'Recipients' },
  { key: 'retention', header: 'Retention' },
  { key: 'systems', header: 'Systems' },
  { key: 'processors', header: 'Processors' },
  { key: 'jointControllers', header: 'Joint controllers' },
  { key: 'securityMeasures', header: 'Technical and organisational measures' },
  { key: 'controls', header: 'Technical and organisational measures (controls)' },
  { key: 'owner', header: 'Owner' },
];

/** Entries a CSV page reads at once: memory stays flat however large the register grows. */
export const REGISTER_CSV_PAGE = 500;

/**
 * The register's entries, a page at a time in register order (controllers first), each page named by the register's
 * one statement: what the CSV download and the Report Center's Article 30 report read, narrowed by `narrow`.
 */
export async function* registerEntryPages(db: DbOrTx, actor: Actor, narrow: RegisterNarrowing = {}, pageSize = REGISTER_CSV_PAGE): AsyncGenerator<RegisterEntry[]> {
  let after: RegisterKey | undefined;
  for (;;) {
    const keys = await registerPageIds(db, actor, after, pageSize, narrow);
    if (keys.length === 0) return;
    yield (await registerRows(db, actor, keys.map((k) => k.id))).map(entryOf);
    if (keys.length < pageSize) return;
    after = keys[keys.length - 1];
  }
}

/**
 * The register as CSV text, page by page (UTF-8 byte order mark first, CRLF line ends, cells a spreadsheet would run
 * as formulas guarded, as toCsv writes them), controllers first; each page read when the previous one is sent.
 */
export async function* registerCsvChunks(db: DbOrTx, actor: Actor, pageSize = REGISTER_CSV_PAGE, narrow: RegisterNarrowing = {}): AsyncGenerator<string> {
  yield `\uFEFF${csvLine(REGISTER_COLUMNS.map((c) => c.header))}\r\n`;
  for await (const entries of registerEntryPages(db, actor, narrow, pageSize)) {
    yield entries.map((entry) => `${csvLine(REGISTER_COLUMNS.map((c) => entry[c.key]))}\r\n`).join('');
  }
}

/** The CSV download as a streamed response, dated in its file name, narrowed as the screen was. */
export function registerCsvResponse(db: DbOrTx, actor: Actor, fileName: string, narrow: RegisterNarrowing = {}): Response {
  // Refused before the first byte, so a refusal is an answer of its own and not a broken download.
  requirePermission(actor, 'dataPrivacy:read');
  const chunks = registerCsvChunks(db, actor, REGISTER_CSV_PAGE, narrow);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"` } });
}
