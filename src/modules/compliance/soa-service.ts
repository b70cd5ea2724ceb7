import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { analysisControls, analysisPolicies, complianceAnalyses, complianceItems, controls, policies } from '../../../db/schema';
import { toCsv } from '../../platform/csv/write';
import { nameAsSeen } from '../../platform/records/links';
import { canTouch, type Actor } from '../../platform/permissions/permissions';
import { packageAccess } from './analyses-service';
import type { AnalysisStatus } from './schema';

/** One line of a package's Statement of Applicability. */
export interface SoaRow {
  analysisId: string;
  code: string;
  name: string;
  applicable: boolean;
  justification: string;
  status: AnalysisStatus;
  /** Mapped controls and policies by name ("(restricted)" for one the reader may not read). */
  controls: string[];
  policies: string[];
  /** Evidence linked to the requirement or to one of its mapped controls (each counted once). */
  evidenceCount: number;
}

/**
 * The Statement of Applicability of a package: every requirement and additional item (not headings) in file order
 * whose analysis the reader may read, with applicability, justification, status, what addresses it and how much
 * evidence there is. Four queries, however large the package.
 */
export async function statementOfApplicability(db: DbOrTx, actor: Actor, packageId: string): Promise<{ packageId: string; name: string; rows: SoaRow[] }> {
  const access = await packageAccess(db, actor, packageId);
  const analyses = (await db.select({
    id: complianceAnalyses.id, code: complianceItems.code, name: complianceItems.name, applicable: complianceAnalyses.applicable,
    justification: complianceAnalyses.justification, status: complianceAnalyses.status, ownerId: complianceAnalyses.ownerId, ownerGroupId: complianceAnalyses.ownerGroupId,
  }).from(complianceAnalyses).innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
    .where(eq(complianceAnalyses.packageId, packageId)).orderBy(asc(complianceItems.position)))
    .filter((a) => access.whole || canTouch(actor, 'compliance:read', a));
  const ids = analyses.map((a) => a.id);
  if (ids.length === 0) return { packageId, name: access.name, rows: [] };
  const [mappedControls, mappedPolicies, evidence] = await Promise.all([
    db.select({ analysisId: analysisControls.analysisId, name: controls.name, ownerId: controls.ownerId, ownerGroupId: controls.ownerGroupId })
      .from(analysisControls).innerJoin(controls, eq(controls.id, analysisControls.controlId))
      .where(inArray(analysisControls.analysisId, ids)).orderBy(asc(controls.name)),
    db.select({ analysisId: analysisPolicies.analysisId, name: policies.title, ownerId: policies.ownerId, ownerGroupId: policies.ownerGroupId })
      .from(analysisPolicies).innerJoin(policies, eq(policies.id, analysisPolicies.policyId))
      .where(and(inArray(analysisPolicies.analysisId, ids))).orderBy(asc(policies.title)),
    selectRows<{ analysis_id: string; n: number }>(db, sql`
      select a.id as analysis_id, count(distinct l.evidence_id)::int as n
        from compliance_analyses a
        join evidence_links l on (l.record_type = 'requirement' and l.record_id = a.id)
          or (l.record_type = 'control' and l.record_id in (select control_id from compliance_analysis_controls c where c.analysis_id = a.id))
       where a.package_id = ${packageId}
       group by a.id`),
  ]);
  const group = (rows: { analysisId: string; name: string; ownerId: string | null; ownerGroupId: string | null }[], module: 'controls' | 'policies') => {
    const byAnalysis = new Map<string, string[]>();
    for (const row of rows) byAnalysis.set(row.analysisId, [...(byAnalysis.get(row.analysisId) ?? []), nameAsSeen(actor, module, row, row.name)]);
    return byAnalysis;
  };
  const controlNames = group(mappedControls, 'controls');
  const policyNames = group(mappedPolicies, 'policies');
  const evidenceCounts = new Map(evidence.map((e) => [e.analysis_id, e.n]));
  return {
    packageId, name: access.name,
    rows: analyses.map((a) => ({
      analysisId: a.id, code: a.code, name: a.name, applicable: a.applicable, justification: a.justification, status: a.status,
      controls: controlNames.get(a.id) ?? [], policies: policyNames.get(a.id) ?? [], evidenceCount: evidenceCounts.get(a.id) ?? 0,
    })),
  };
}

export const SOA_CSV_HEADER = ['Code', 'Requirement', 'Applicable', 'Justification', 'Implementation status', 'Controls', 'Policies', 'Evidence'] as const;

/** The statement as CSV (UTF-8 with BOM, as every download here): names and labels, one requirement a line. */
export function soaCsv(rows: readonly SoaRow[], statusLabel: (status: AnalysisStatus) => string): string {
  return toCsv([
    [...SOA_CSV_HEADER],
    ...rows.map((r) => [r.code, r.name, r.applicable ? 'Yes' : 'No', r.justification, statusLabel(r.status), r.controls.join('; '), r.policies.join('; '), r.evidenceCount]),
  ]);
}
