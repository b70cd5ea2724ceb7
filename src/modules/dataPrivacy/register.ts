import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { groups, processingActivities, users } from '../../../db/schema';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import { recordRows, recordType, typedRecordAsSeen } from '../../platform/records/record-types';
import { valueLabel } from '../../platform/core/value-labels';
import { csvLine } from '../../platform/csv/write';
import { LINKED_TYPES } from './service';
import { PROCESSING_ROLES } from './schema';
import { categoryChoices, dataSubjectCategoryList, personalDataCategoryList } from './categories';

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
 * The register's main statement: every processing activity the reader may read (dataPrivacy:read; own level: those
 * they or their groups own), retired ones left out, in register order, with its owner's name. Given `page`, the
 * `limit` entries after `after` (the CSV streams the register page by page). Linked records and categories are named
 * afterwards, one query per linked type for all the rows at once (resolving them inside this statement, grouped per
 * activity, cost four sorts and aggregates over 40,000 links: slower than the whole page should take).
 */
export function registerQuery(db: DbOrTx, actor: Actor, page?: { after?: RegisterKey; limit: number }) {
  const readable = ownershipCondition(actor, 'dataPrivacy:read', processingActivities.ownerId, processingActivities.ownerGroupId);
  const after = page?.after
    ? sql`(${processingActivities.role}, ${processingActivities.name}, ${processingActivities.id}) > (${page.after.role}, ${page.after.name}, ${page.after.id}::uuid)`
    : undefined;
  const query = db.select({ activity: processingActivities, ownerName: users.name, ownerGroupName: groups.name })
    .from(processingActivities)
    .leftJoin(users, eq(users.id, processingActivities.ownerId))
    .leftJoin(groups, eq(groups.id, processingActivities.ownerGroupId))
    .where(and(readable, sql`${processingActivities.status} <> 'retired'`, after))
    .orderBy(asc(processingActivities.role), asc(processingActivities.name), asc(processingActivities.id));
  return page ? query.limit(page.limit) : query;
}

type RegisterRow = Awaited<ReturnType<typeof registerQuery>>[number];

/** Names everything the rows link to, as the reader may see it: one query per linked type and one per category list. */
async function namer(db: DbOrTx, actor: Actor, rows: readonly RegisterRow[]) {
  const assetType = recordType(LINKED_TYPES.systemAssetIds);
  const vendorType = recordType(LINKED_TYPES.processorThirdPartyIds);
  const [assets, vendors, subjects, categories] = await Promise.all([
    recordRows(db, assetType, rows.flatMap((r) => r.activity.systemAssetIds)),
    recordRows(db, vendorType, rows.flatMap((r) => r.activity.processorThirdPartyIds)),
    categoryChoices(db, dataSubjectCategoryList),
    categoryChoices(db, personalDataCategoryList),
  ]);
  const linked = (type: typeof assetType, found: typeof assets, ids: readonly string[]) =>
    ids.map((id) => typedRecordAsSeen(actor, type, id, found.get(id)).title).join('; ');
  const named = (choices: readonly { value: string; label: string }[]) => {
    const names = new Map(choices.map((c) => [c.value, c.label]));
    return (keys: readonly string[]) => keys.map((key) => names.get(key) ?? valueLabel(key)).join('; ');
  };
  const subjectNames = named(subjects);
  const categoryNames = named(categories);
  return ({ activity: a, ownerName, ownerGroupName }: RegisterRow): RegisterEntry => ({
    id: a.id,
    name: a.name,
    role: valueLabel(a.role),
    status: valueLabel(a.status),
    purposes: a.purposes,
    legalBasis: valueLabel(a.legalBasis),
    specialCategoryCondition: a.specialCategoryCondition ? valueLabel(a.specialCategoryCondition) : '',
    dataSubjectCategories: subjectNames(a.dataSubjectCategories),
    personalDataCategories: categoryNames(a.personalDataCategories),
    recipients: a.recipients,
    retention: a.retention,
    systems: linked(assetType, assets, a.systemAssetIds),
    processors: linked(vendorType, vendors, a.processorThirdPartyIds),
    jointControllers: a.jointControllers,
    securityMeasures: a.securityMeasures,
    owner: ownerName ?? ownerGroupName ?? '',
  });
}

/**
 * The Article 30 register: every processing activity the reader may read, grouped by role, by name. Systems and
 * processors are named only where the reader may read them ("(restricted)" otherwise, "(deleted)" for a record gone
 * since). Retired activities are left out: the register lists the processing that is carried out (drafts are shown,
 * marked as such).
 */
export async function articleThirtyRegister(db: DbOrTx, actor: Actor): Promise<RegisterSection[]> {
  const rows = await registerQuery(db, actor);
  const entryOf = await namer(db, actor, rows);
  return PROCESSING_ROLES.map((role) => ({
    role, heading: ROLE_HEADINGS[role], entries: rows.filter((row) => row.activity.role === role).map(entryOf),
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
  { key: 'owner', header: 'Owner' },
];

/** Entries a CSV page reads at once: memory stays flat however large the register grows. */
export const REGISTER_CSV_PAGE = 500;

/**
 * The register as CSV text, page by page (UTF-8 byte order mark first, CRLF line ends, cells a spreadsheet would run
 * as formulas guarded, as toCsv writes them), controllers first; each page read when the previous one is sent.
 */
export async function* registerCsvChunks(db: DbOrTx, actor: Actor, pageSize = REGISTER_CSV_PAGE): AsyncGenerator<string> {
  yield `\uFEFF${csvLine(REGISTER_COLUMNS.map((c) => c.header))}\r\n`;
  let after: RegisterKey | undefined;
  for (;;) {
    const rows = await registerQuery(db, actor, { after, limit: pageSize });
    if (rows.length === 0) return;
    const entryOf = await namer(db, actor, rows);
    yield rows.map((row) => {
      const entry = entryOf(row);
      return `${csvLine(REGISTER_COLUMNS.map((c) => entry[c.key]))}\r\n`;
    }).join('');
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1];
    after = { role: last.activity.role, name: last.activity.name, id: last.activity.id };
  }
}

/** The CSV download as a streamed response, dated in its file name. */
export function registerCsvResponse(db: DbOrTx, actor: Actor, fileName: string): Response {
  // Refused before the first byte, so a refusal is an answer of its own and not a broken download.
  requirePermission(actor, 'dataPrivacy:read');
  const chunks = registerCsvChunks(db, actor);
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
