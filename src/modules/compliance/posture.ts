import { and, eq, min, or, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { complianceAnalyses, complianceItems, compliancePackages, history } from '../../../db/schema';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import { dayEnd, type PostureKind } from '../../platform/dashboard/posture';
import { countsOf, packageAccess } from './analyses-service';
import { listPackages } from './packages-service';
import { ANALYSIS_RECORD_TYPE, type PackageScore, type StatusCounts } from './schema';

/**
 * A package's compliance score as it stood at the end of past days, from History (docs/dashboard.md, "Posture at a
 * past date"). An analysis's status at a moment is the `after` of the last History entry of that analysis that changed
 * its status before the moment (its creation on import sets `not_assessed`); an analysis created after the moment is
 * not counted. One index probe per analysis and day, on history_record_idx (record type, record id, time, id), read
 * backwards from the moment: the cost follows the package's size, not the length of History.
 */

type Row = { n: number; package_id: string; kind: 'requirement' | 'additional'; status: string; count: number };

/** The statement (exported so the benchmark times the same SQL through the driver). */
export function packageScoresAtQuery(actor: Actor, packageIds: readonly string[], days: readonly string[], whole: boolean) {
  const level = requirePermission(actor, 'compliance:read');
  const visible = level === 'all' || whole ? undefined : or(
    ownershipCondition(actor, 'compliance:read', compliancePackages.ownerId, compliancePackages.ownerGroupId),
    ownershipCondition(actor, 'compliance:read', complianceAnalyses.ownerId, complianceAnalyses.ownerGroupId),
  );
  const ends = `{${days.map((d) => dayEnd(d).toISOString()).join(',')}}`;
  const ids = `{${packageIds.join(',')}}`;
  return sql`
    select d.n::int as n, ${complianceAnalyses.packageId} as package_id, ${complianceItems.kind} as kind, s.status, count(*)::int as count
    from unnest(${ends}::timestamptz[]) with ordinality d(day_end, n)
    cross join ${complianceAnalyses}
    join ${complianceItems} on ${complianceItems.id} = ${complianceAnalyses.itemId}
    join ${compliancePackages} on ${compliancePackages.id} = ${complianceAnalyses.packageId}
    cross join lateral (
      select h.changes -> 'status' ->> 'after' as status from ${history} h
      where h.record_type = ${ANALYSIS_RECORD_TYPE} and h.record_id = ${complianceAnalyses.id}::text and h.at < d.day_end and h.changes ? 'status'
      order by h.at desc, h.id desc limit 1
    ) s
    where ${and(sql`${complianceAnalyses.packageId} = any(${ids}::uuid[])`, sql`${complianceItems.kind} in ('requirement', 'additional')`, sql`s.status is not null`, visible)}
    group by d.n, ${complianceAnalyses.packageId}, ${complianceItems.kind}, s.status`;
}

/**
 * The scores of packages at the end of each day given (YYYY-MM-DD, UTC): one map per day, in the order given. What the
 * viewer may read is judged as the Packages list judges it today (the whole package when they may read it, otherwise
 * the analyses they or their groups own now).
 */
export async function packageScoresAt(db: DbOrTx, actor: Actor, packageIds: readonly string[], days: readonly string[], whole = false): Promise<Map<string, PackageScore>[]> {
  const result = days.map(() => new Map<string, PackageScore>());
  if (packageIds.length === 0 || days.length === 0) return result;
  const rows = await selectRows<Row>(db, packageScoresAtQuery(actor, packageIds, days, whole));
  const counts = days.map(() => new Map(packageIds.map((id) => [id, { requirement: new Map<string, number>(), additional: new Map<string, number>() }])));
  for (const row of rows) counts[row.n - 1].get(row.package_id)?.[row.kind].set(row.status, row.count);
  counts.forEach((byPackage, i) => {
    for (const [packageId, byKind] of byPackage) result[i].set(packageId, { packageId, requirements: countsOf(byKind.requirement), additional: countsOf(byKind.additional) });
  });
  return result;
}

/** One package's score at the end of a day, with the rule of its page (404 when the viewer may read none of it). */
export async function packageScoreAt(db: DbOrTx, actor: Actor, packageId: string, day: string): Promise<PackageScore> {
  const access = await packageAccess(db, actor, packageId);
  const [scores] = await packageScoresAt(db, actor, [packageId], [day], access.whole);
  return scores.get(packageId)!;
}

/** When the package's first History entry (its import) was written. */
export async function packageFirstEntry(db: DbOrTx, packageId: string): Promise<Date | null> {
  const [row] = await db.select({ at: min(history.at) }).from(history)
    .where(and(eq(history.recordType, 'compliancePackage'), eq(history.recordId, packageId)));
  return row?.at ? new Date(row.at) : null;
}

/** "33.3% compliant: 1 of 3 applicable requirements, 1 not assessed", as the Dashboard's bars say it. */
export function scoreWords(r: StatusCounts): string {
  if (r.applicable === 0) return r.total === 0 ? 'Not imported yet' : 'No applicable requirements';
  return `${r.percentCompliant}% compliant: ${r.compliant} of ${r.applicable} applicable ${r.applicable === 1 ? 'requirement' : 'requirements'}${r.not_assessed ? `, ${r.not_assessed} not assessed` : ''}`;
}

/** Packages shown in the posture, as on the Dashboard's card: the first 20 by name. */
const SHOWN = 20;

/** The compliance module's posture: each package's requirement score (percent compliant) at each day's end. */
export const compliancePosture: PostureKind[] = [{
  key: 'complianceScores', title: 'Compliance by package', needs: 'compliance:read',
  async firstEntry(db) {
    const [row] = await db.select({ at: min(history.at) }).from(history).where(eq(history.recordType, 'compliancePackage'));
    return row?.at ? new Date(row.at) : null;
  },
  async at(db, viewer, days) {
    const packages = await listPackages(db, viewer, { pageSize: SHOWN, sort: 'name' });
    const scores = await packageScoresAt(db, viewer, packages.rows.map((p) => p.id), days);
    return {
      unit: 'percent',
      columns: packages.rows.map((p) => ({ label: p.name, href: `/compliance/packages/${p.id}` })),
      rows: scores.map((byPackage) => packages.rows.map((p) => {
        const r = byPackage.get(p.id)!.requirements;
        return { value: r.total === 0 ? null : r.percentCompliant, text: scoreWords(r) };
      })),
    };
  },
}];
