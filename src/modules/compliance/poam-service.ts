import { valueLabel } from '../../platform/core/value-labels';
import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import {
  analysisProjects, auditFindings, auditPlans, complianceAnalyses, complianceItems, compliancePackages, controls, controlTests, projects, users,
} from '../../../db/schema';
import { toCsv } from '../../platform/csv/write';
import { nameAsSeen } from '../../platform/records/links';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { paging, type Page } from '../../platform/http/paging';
import { levelOf, requirePermission, type Actor } from '../../platform/permissions/permissions';
import { analysisCondition } from './analyses-service';
import type { PoamItem, PoamQuery, PoamSeverity, PoamSource } from './schema';

/**
 * The POA&M register (plan of action and milestones): every open weakness, drawn from three sources, read only.
 *
 * | Source      | Weakness                                            | Severity                          | Status                         | Due date                                                                  |
 * |-------------|-----------------------------------------------------|-----------------------------------|--------------------------------|---------------------------------------------------------------------------|
 * | compliance  | analysis non-compliant or partially compliant       | non-compliant high, partially medium | in_remediation when a mapped project is not completed, else open | earliest deadline of a mapped project not completed; else assessed + 90 days (high) or + 180 days (medium) |
 * | audit       | audit finding not closed                            | medium (findings carry no rating) | the finding's (open, in_remediation) | the finding's deadline (none: never overdue)                              |
 * | controlTest | the latest test of a control that is not retired failed | high                           | open                           | tested on + 30 days                                                       |
 *
 * Overdue: the due date is before today (UTC). Each source is limited to what the caller may read in its module
 * (compliance, audits, controls) at their level; a module they hold no read right on contributes nothing.
 */

export const SEVERITY_DUE_DAYS = { high: 90, medium: 180 } as const;
export const FAILED_TEST_DUE_DAYS = 30;

const SEVERITY_RANK: Record<PoamSeverity, number> = { high: 0, medium: 1, low: 2 };

export function addDays(isoDate: string, days: number): string {
  const day = new Date(`${isoDate}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}

type Draft = Omit<PoamItem, 'overdue'>;

async function complianceWeaknesses(db: DbOrTx, actor: Actor): Promise<Draft[]> {
  if (levelOf(actor, 'compliance:read') === null) return [];
  const open = sql<string | null>`(select min(${projects.deadline})::text from ${analysisProjects} join ${projects} on ${projects.id} = ${analysisProjects.projectId}
    where ${analysisProjects.analysisId} = ${complianceAnalyses.id} and ${projects.status} <> 'completed')`;
  const active = sql<boolean>`exists (select 1 from ${analysisProjects} join ${projects} on ${projects.id} = ${analysisProjects.projectId}
    where ${analysisProjects.analysisId} = ${complianceAnalyses.id} and ${projects.status} <> 'completed')`;
  const rows = await db.select({
    id: complianceAnalyses.id, status: complianceAnalyses.status, assessedAt: complianceAnalyses.assessedAt, updatedAt: complianceAnalyses.updatedAt,
    code: complianceItems.code, name: complianceItems.name, packageName: compliancePackages.name, owner: users.name, ownerId: complianceAnalyses.ownerId,
    projectDeadline: open, remediating: active,
  }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
    .innerJoin(compliancePackages, eq(compliancePackages.id, complianceAnalyses.packageId))
    .leftJoin(users, eq(users.id, complianceAnalyses.ownerId))
    .where(and(inArray(complianceAnalyses.status, ['non_compliant', 'partially_compliant']), analysisCondition(actor, 'compliance:read')));
  return rows.map((r) => {
    const severity: PoamSeverity = r.status === 'non_compliant' ? 'high' : 'medium';
    const assessed = (r.assessedAt ?? r.updatedAt).toISOString().slice(0, 10);
    return {
      id: `compliance:${r.id}`, source: 'compliance', sourceId: r.id, title: `${r.code} ${r.name}`, reference: r.packageName,
      weakness: r.status, severity, status: r.remediating ? 'in_remediation' : 'open',
      dueDate: r.projectDeadline ?? addDays(assessed, SEVERITY_DUE_DAYS[severity === 'high' ? 'high' : 'medium']),
      owner: r.owner, ownerId: r.ownerId, link: `/compliance/analyses/${r.id}`,
    };
  });
}

async function auditWeaknesses(db: DbOrTx, actor: Actor): Promise<Draft[]> {
  if (levelOf(actor, 'audits:read') === null) return [];
  const rows = await db.select({
    id: auditFindings.id, title: auditFindings.title, status: auditFindings.status, deadline: auditFindings.deadline, owner: users.name, ownerId: auditFindings.ownerId,
    plan: auditPlans.title, planOwnerId: auditPlans.ownerId, planOwnerGroupId: auditPlans.ownerGroupId,
  }).from(auditFindings)
    .innerJoin(auditPlans, eq(auditPlans.id, auditFindings.auditPlanId))
    .leftJoin(users, eq(users.id, auditFindings.ownerId))
    .where(and(ne(auditFindings.status, 'closed'), ownershipCondition(actor, 'audits:read', auditFindings.ownerId, auditFindings.ownerGroupId)));
  return rows.map((r) => ({
    id: `audit:${r.id}`, source: 'audit', sourceId: r.id, title: r.title,
    // A finding the reader owns can sit in a plan they may not read: the plan is then not named.
    reference: nameAsSeen(actor, 'audits', { ownerId: r.planOwnerId, ownerGroupId: r.planOwnerGroupId }, r.plan), weakness: 'audit finding',
    severity: 'medium', status: r.status === 'in_remediation' ? 'in_remediation' : 'open', dueDate: r.deadline, owner: r.owner, ownerId: r.ownerId,
    link: `/audits/findings/${r.id}`,
  }));
}

async function controlTestWeaknesses(db: DbOrTx, actor: Actor): Promise<Draft[]> {
  if (levelOf(actor, 'controls:read') === null) return [];
  // The latest test of each control (by test date, then by when it was recorded); only a failed latest test is a weakness.
  const latest = db.selectDistinctOn([controlTests.controlId], {
    id: controlTests.id, controlId: controlTests.controlId, testedOn: controlTests.testedOn, result: controlTests.result,
  }).from(controlTests).orderBy(controlTests.controlId, desc(controlTests.testedOn), desc(controlTests.createdAt)).as('latest');
  const rows = await db.select({
    id: latest.id, controlId: controls.id, name: controls.name, testedOn: latest.testedOn, owner: users.name, ownerId: controls.ownerId,
  }).from(latest)
    .innerJoin(controls, eq(controls.id, latest.controlId))
    .leftJoin(users, eq(users.id, controls.ownerId))
    .where(and(eq(latest.result, 'fail'), ne(controls.status, 'retired'), ownershipCondition(actor, 'controls:read', controls.ownerId, controls.ownerGroupId)))
    .orderBy(asc(controls.name));
  return rows.map((r) => ({
    id: `controlTest:${r.id}`, source: 'controlTest', sourceId: r.id, title: `Failed test of ${r.name}`, reference: r.name,
    weakness: `test on ${r.testedOn} failed`, severity: 'high', status: 'open', dueDate: addDays(r.testedOn, FAILED_TEST_DUE_DAYS), owner: r.owner, ownerId: r.ownerId,
    link: `/controls/${r.controlId}`,
  }));
}

const SOURCES: Record<PoamSource, (db: DbOrTx, actor: Actor) => Promise<Draft[]>> = {
  compliance: complianceWeaknesses, audit: auditWeaknesses, controlTest: controlTestWeaknesses,
};

/** Each sortable column's value (blanks last whichever the direction). */
const SORT_VALUES: Record<string, (i: PoamItem) => string | number | null> = {
  title: (i) => i.title.toLowerCase(),
  source: (i) => POAM_SOURCE_LABELS[i.source],
  reference: (i) => i.reference.toLowerCase(),
  severity: (i) => SEVERITY_RANK[i.severity],
  status: (i) => valueLabel(i.status),
  dueDate: (i) => i.dueDate,
  owner: (i) => i.owner?.toLowerCase() ?? null,
};

/** The POA&M's own order: overdue first, then by due date (none last), severity and title. */
const urgency = (a: PoamItem, b: PoamItem) => Number(b.overdue) - Number(a.overdue)
  || (a.dueDate ?? '9999-12-31').localeCompare(b.dueDate ?? '9999-12-31')
  || SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]
  || a.title.localeCompare(b.title) || a.id.localeCompare(b.id);

/** A column's order ("-" first: descending), the POA&M's own order breaking ties; its own order without a (known) column. */
function orderBy(sort: string | undefined): (a: PoamItem, b: PoamItem) => number {
  const descending = sort?.startsWith('-') ?? false;
  const value = sort ? SORT_VALUES[descending ? sort.slice(1) : sort] : undefined;
  if (!value) return urgency;
  return (a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null || y === null) return x === y ? urgency(a, b) : x === null ? 1 : -1;
    const order = x < y ? -1 : x > y ? 1 : 0;
    return (descending ? -order : order) || urgency(a, b);
  };
}

/** Every weakness matching the filters, overdue first, then by due date (none last), severity and title, or by the column asked for. */
export async function poamItems(db: DbOrTx, actor: Actor, query: Omit<PoamQuery, 'page' | 'pageSize'>, now = new Date()): Promise<PoamItem[]> {
  requirePermission(actor, 'compliance:read');
  const today = now.toISOString().slice(0, 10);
  const sources = query.source ? [query.source] : (Object.keys(SOURCES) as PoamSource[]);
  const drafts = (await Promise.all(sources.map((s) => SOURCES[s](db, actor)))).flat();
  const words = query.q?.trim().toLowerCase();
  return drafts
    .map((d) => ({ ...d, overdue: d.dueDate !== null && d.dueDate < today }))
    .filter((i) => (!query.status || i.status === query.status) && (!query.severity || i.severity === query.severity)
      && (query.overdue === undefined || String(i.overdue) === query.overdue) && (!query.ownerId || i.ownerId === query.ownerId)
      && (!words || i.title.toLowerCase().includes(words) || i.reference.toLowerCase().includes(words)))
    .sort(orderBy(query.sort));
}

export async function listPoam(db: DbOrTx, actor: Actor, query: PoamQuery, now = new Date()): Promise<Page<PoamItem>> {
  const { page, pageSize, offset } = paging(query);
  const all = await poamItems(db, actor, query, now);
  return { rows: all.slice(offset, offset + pageSize), total: all.length, page, pageSize };
}

/** The sources in words: the one place the screen, its CSV and the Report Center read them from. */
export const POAM_SOURCE_LABELS: Readonly<Record<PoamSource, string>> = { compliance: 'Compliance analysis', audit: 'Audit finding', controlTest: 'Control test' };

/**
 * The POA&M's columns in the screen's words (labels, never stored keys): the CSV download's and the Report Center's.
 * The weakness reads "Non-compliant", "Audit finding" or "Test on 2026-01-01 failed".
 */
export const POAM_COLUMNS: readonly { header: string; value: (i: PoamItem) => string | null }[] = [
  { header: 'Source', value: (i) => POAM_SOURCE_LABELS[i.source] },
  { header: 'Weakness', value: (i) => i.title },
  { header: 'Reference', value: (i) => i.reference },
  { header: 'Finding', value: (i) => valueLabel(i.weakness) },
  { header: 'Severity', value: (i) => valueLabel(i.severity) },
  { header: 'Status', value: (i) => valueLabel(i.status) },
  { header: 'Due', value: (i) => i.dueDate },
  { header: 'Overdue', value: (i) => (i.overdue ? 'Yes' : 'No') },
  { header: 'Owner', value: (i) => i.owner },
];

/**
 * The register as a CSV file, written like every CSV of the service (BOM, CRLF, formula-like cells neutralised), in
 * the screen's words, with the source record's id last (to find it again).
 */
export function poamCsv(items: PoamItem[]): string {
  return toCsv([[...POAM_COLUMNS.map((c) => c.header), 'Source record id'], ...items.map((i) => [...POAM_COLUMNS.map((c) => c.value(i)), i.sourceId])]);
}
