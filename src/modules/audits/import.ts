import type { auditFindings } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import type { NamedRecords } from '../../platform/csv/import-type';
import {
  defineImportType, keyedColumn, ownerColumn, ownerGroupColumn, readableNamed, readDate, readNamed, writeNamed,
} from '../../platform/csv/import-type';
import { dateProblems } from '../../platform/core/dates';
import type { RecordKind } from '../../platform/records/records';
import { FINDING_STATUSES, FindingCreate, FindingUpdate } from './schema';
import { controlKind } from '../controls/service';
import { auditPlanKind, findingKind } from './service';

interface FindingLookups {
  /** Audit plans and controls the importer may read (others answer like missing ones: their existence is not disclosed). */
  plans: NamedRecords;
  controls: NamedRecords;
}

/**
 * findingKind (src/modules/audits/service.ts) checks the plan and the control with a query per finding. For bulk writes
 * the same rules are stated here over lookups loaded once per run, as risks do; keep the two in step when a finding
 * rule changes. The rule "a finding is created open" makes any other status on a create row an error row.
 */
function findingImportKind(l: FindingLookups): RecordKind<typeof auditFindings, FindingCreate> {
  return {
    ...findingKind,
    async check(_db, c, before) {
      const problems: FieldProblem[] = [];
      if (!c.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
      // Lookups hold only records the importer may read; a link left as it was is not judged again (requireReadableLink).
      if (c.auditPlanId !== before?.auditPlanId && !l.plans.nameOf.has(c.auditPlanId)) problems.push({ field: 'auditPlanId', message: 'no such audit plan' });
      if (before === null && c.status !== 'open') problems.push({ field: 'status', message: 'a finding is created open; change its status with an update' });
      problems.push(...dateProblems('deadline', c.deadline));
      if (c.controlId && c.controlId !== before?.controlId && !l.controls.nameOf.has(c.controlId)) problems.push({ field: 'controlId', message: 'no such control' });
      return problems;
    },
  };
}

/** Audit findings CSV (area audits/findings): the audit plan by title (or id), the control by name (or id); status only on updates. */
export const findingImport = defineImportType<FindingLookups>({
  area: 'audits/findings',
  module: 'audits',
  title: 'Audit findings',
  Create: FindingCreate,
  Update: FindingUpdate,
  customFields: false,
  columns: [
    {
      name: 'audit_plan', field: 'auditPlanId', required: true, help: 'title (or id) of an audit plan', blankOnUpdate: 'keep',
      read: (text, l) => readNamed(l.plans, 'audit plan', text), write: (value, l) => writeNamed(l.plans, value),
    },
    { name: 'title', field: 'title', required: true, help: 'text, up to 300 characters' },
    { name: 'description', field: 'description', help: 'text' },
    keyedColumn(FINDING_STATUSES, {
      name: 'status', field: 'status', note: '(only on updates: a new finding is Open)', blankOnUpdate: 'keep',
    }),
    { name: 'deadline', field: 'deadline', help: 'date YYYY-MM-DD', blankOnUpdate: 'clear', read: readDate },
    {
      name: 'control', field: 'controlId', help: 'name (or id) of a control', blankOnUpdate: 'clear',
      read: (text, l) => readNamed(l.controls, 'control', text), write: (value, l) => writeNamed(l.controls, value),
    },
    ownerColumn(),
    ownerGroupColumn(),
  ],
  async prepare(db, actor) {
    const [plans, controls] = await Promise.all([readableNamed(db, actor, auditPlanKind), readableNamed(db, actor, controlKind)]);
    return { plans, controls };
  },
  kind: (l) => findingImportKind(l),
});
