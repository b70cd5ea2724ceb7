import { eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems, compliancePackages, exceptions, policies, risks } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import {
  defineImportType, namedRecords, ownerColumn, readDate, readNamed, writeNamed,
  type ImportColumn, type ImportType, type ImportWriter, type NamedRecords,
} from '../../platform/csv/import-type';
import { canTouch, type Permission } from '../../platform/permissions/permissions';
import { complianceParent, policyParent, riskParent, type ExceptionParent } from './parents';
import {
  ComplianceExceptionImportCreate, ComplianceExceptionImportUpdate, ExceptionCreate, ParentExceptionImportUpdate, type ExceptionUpdate,
} from './schema';
import { createExceptions, readableExceptions, updateExceptions, type ExceptionBatchOutcome } from './service';

/**
 * Exceptions CSV (areas risks/exceptions, policies/exceptions, compliance/exceptions). Rows without id request an
 * exception (it arrives as requested); rows with an id change that exception while it is requested. The rights are the
 * parent module's update (and read for the download). Rows go to the exceptions service's batch writes
 * (createExceptions / updateExceptions), which apply the parent rules: the parent exists, is readable, and the importer
 * holds update on it, at the own level per row. The parent of an exception is not changed by an import.
 */

type Fields = Record<string, unknown>;
type Stored = typeof exceptions.$inferSelect;

interface ParentLookups {
  /** Risks or policies the importer may read (others answer like missing ones). */
  parents: NamedRecords;
  /** Compliance: packages with a readable requirement, and the readable analyses by package and item code. */
  packages: NamedRecords;
  analysisOf: ReadonlyMap<string, string>;
  requirementOf: ReadonlyMap<string, { packageId: string; code: string }>;
}

const requirementKey = (packageId: string, code: string) => `${packageId}|${code.trim().toLowerCase()}`;
const readPermission = (parent: ExceptionParent) => `${parent.module}:read` as Permission;
const updatePermission = (parent: ExceptionParent) => `${parent.module}:update` as Permission;

const NO_PARENT_CHANGE = 'an exception stays with its parent; request a new exception for another one';

const commonColumns = <L>(): ImportColumn<L>[] => [
  { name: 'title', field: 'title', required: true, help: 'text, up to 300 characters', blankOnUpdate: 'keep' },
  { name: 'description', field: 'description', required: true, help: 'text', blankOnUpdate: 'keep' },
  { ...ownerColumn<L>() },
  { ...ownerColumn<L>(), name: 'approver', field: 'approverId', help: 'e-mail of an active account expected to decide' },
  { name: 'expires_at', field: 'expiresAt', required: true, help: 'date YYYY-MM-DD', blankOnUpdate: 'keep', read: readDate },
];

/** The exceptions writer of one parent kind; `toParent` / `fromParent` translate the parent columns. */
function exceptionWriter(
  parent: ExceptionParent, parentFields: readonly string[],
  toParent: (fields: Fields) => { parentId: string } | { problem: FieldProblem },
  fromParent: (row: Stored) => Fields,
): ImportWriter {
  const toFields = (row: Stored): Fields => ({
    id: row.id, ...fromParent(row), title: row.title, description: row.description, ownerId: row.ownerId, approverId: row.approverId, expiresAt: row.expiresAt,
  });
  const asFields = (outcome: ExceptionBatchOutcome) => (outcome.ok
    ? { ...outcome, before: outcome.before && toFields(outcome.before as Stored), after: toFields({ id: outcome.id, ...outcome.after } as Stored) }
    : outcome);
  return {
    label: `${parent.label} exception`,
    async stored(db, actor, ids) {
      return new Map((await readableExceptions(db, parent, actor, { ids })).map((row) => [row.id, toFields(row)]));
    },
    async create(tx, actor, inputs) {
      const outcomes: ExceptionBatchOutcome[] = new Array(inputs.length);
      const ready: { index: number; input: ExceptionCreate }[] = [];
      for (const [index, fields] of inputs.entries()) {
        const found = toParent(fields);
        if ('problem' in found) outcomes[index] = { ok: false, problems: [found.problem] };
        else {
          const rest = Object.fromEntries(Object.entries(fields).filter(([key]) => !parentFields.includes(key)));
          ready.push({ index, input: { ...rest, parentId: found.parentId } as ExceptionCreate });
        }
      }
      const done = await createExceptions(tx, parent, actor, ready.map((r) => r.input));
      ready.forEach((r, i) => { outcomes[r.index] = done[i]; });
      return outcomes.map(asFields);
    },
    async update(tx, actor, items) {
      const outcomes: ExceptionBatchOutcome[] = new Array(items.length);
      const ready: { index: number; id: string; patch: ExceptionUpdate }[] = [];
      for (const [index, { id, patch }] of items.entries()) {
        const moved = parentFields.filter((field) => field in patch);
        if (moved.length) outcomes[index] = { ok: false, problems: moved.map((field) => ({ field, message: NO_PARENT_CHANGE })) };
        else ready.push({ index, id, patch: patch as ExceptionUpdate });
      }
      const done = await updateExceptions(tx, parent, actor, ready.map(({ id, patch }) => ({ id, patch })));
      ready.forEach((r, i) => { outcomes[r.index] = done[i]; });
      return outcomes.map(asFields);
    },
    async current(db, actor, limit) {
      return (await readableExceptions(db, parent, actor, { limit })).map(toFields);
    },
  };
}

/** Risk or policy exceptions: the parent column names the risk (policy) by title or id. */
function parentImport(parent: ExceptionParent, table: typeof risks | typeof policies, column: string) {
  const noun = parent.label.toLowerCase();
  return defineImportType<ParentLookups>({
    area: parent.path.slice(1),
    module: parent.module,
    title: `${parent.label} exceptions`,
    Create: ExceptionCreate,
    Update: ParentExceptionImportUpdate,
    customFields: false,
    rights: { create: updatePermission(parent), update: updatePermission(parent), read: readPermission(parent) },
    columns: [
      {
        name: column, field: 'parentId', required: true, help: `title (or id) of a ${noun} you may update`, blankOnUpdate: 'keep',
        read: (text, l) => readNamed(l.parents, noun, text), write: (value, l) => writeNamed(l.parents, value),
      },
      ...commonColumns<ParentLookups>(),
    ],
    async prepare(db, actor) {
      const rows = await db.select({ id: table.id, name: table.title, ownerId: table.ownerId, ownerGroupId: table.ownerGroupId }).from(table);
      return { parents: namedRecords(rows.filter((r) => canTouch(actor, readPermission(parent), r))), packages: namedRecords([]), analysisOf: new Map(), requirementOf: new Map() };
    },
    writer: () => exceptionWriter(parent, ['parentId'], (fields) => ({ parentId: String(fields.parentId) }), (row) => ({ parentId: row[parent.column] })),
  });
}

export const riskExceptionImport: ImportType = parentImport(riskParent, risks, 'risk');
export const policyExceptionImport: ImportType = parentImport(policyParent, policies, 'policy');

/** Compliance exceptions: package by name (or id) and requirement by its item code within the package name the analysis. */
export const complianceExceptionImport: ImportType = defineImportType<ParentLookups>({
  area: complianceParent.path.slice(1),
  module: complianceParent.module,
  title: 'Compliance exceptions',
  // Shown on their requirement's page, which the row names by package and code, not by id.
  recordHref: () => null,
  Create: ComplianceExceptionImportCreate,
  Update: ComplianceExceptionImportUpdate,
  customFields: false,
  rights: { create: updatePermission(complianceParent), update: updatePermission(complianceParent), read: readPermission(complianceParent) },
  columns: [
    {
      name: 'package', field: 'packageId', required: true, help: 'name (or id) of a compliance package', blankOnUpdate: 'keep',
      read: (text, l) => readNamed(l.packages, 'package', text), write: (value, l) => writeNamed(l.packages, value),
    },
    { name: 'requirement', field: 'requirement', required: true, help: 'code of a requirement in that package', blankOnUpdate: 'keep' },
    ...commonColumns<ParentLookups>(),
  ],
  async prepare(db, actor) {
    const [packageRows, analysisRows] = await Promise.all([
      db.select({ id: compliancePackages.id, name: compliancePackages.name }).from(compliancePackages),
      db.select({
        id: complianceAnalyses.id, packageId: complianceAnalyses.packageId, code: complianceItems.code,
        ownerId: complianceAnalyses.ownerId, ownerGroupId: complianceAnalyses.ownerGroupId,
      }).from(complianceAnalyses).innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)),
    ]);
    // Only requirements the importer may read are named; a package shows only when one of its requirements does.
    const readable = analysisRows.filter((a) => canTouch(actor, readPermission(complianceParent), a));
    const withRequirements = new Set(readable.map((a) => a.packageId));
    return {
      parents: namedRecords([]),
      packages: namedRecords(packageRows.filter((p) => withRequirements.has(p.id))),
      analysisOf: new Map(readable.map((a) => [requirementKey(a.packageId, a.code), a.id])),
      requirementOf: new Map(readable.map((a) => [a.id, { packageId: a.packageId, code: a.code }])),
    };
  },
  writer: (l) => exceptionWriter(
    complianceParent, ['packageId', 'requirement'],
    (fields) => {
      const id = l.analysisOf.get(requirementKey(String(fields.packageId), String(fields.requirement)));
      return id ? { parentId: id } : { problem: { field: 'requirement', message: `no requirement ${String(fields.requirement)} in that package` } };
    },
    (row) => {
      const found = row.complianceAnalysisId ? l.requirementOf.get(row.complianceAnalysisId) : undefined;
      return found ? { packageId: found.packageId, requirement: found.code } : { packageId: null, requirement: null };
    },
  ),
});

/** The exception types, for app.ts. */
export const exceptionImports: readonly ImportType[] = [riskExceptionImport, policyExceptionImport, complianceExceptionImport];
