import { and, eq, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { riskOpenCells, riskReviewDueDays, riskTreatments, risks } from '../../../db/schema';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import type { DueSoonKind } from '../../platform/dashboard/declarations';
import { loadRiskLookups } from './service';

/**
 * The risks' part of the Dashboard: open risks counted per cell of the heat map (inherent and residual), and per band,
 * drawn from the configured scale; and the risk reviews and treatments that come due. Every count is of the risks the
 * viewer may read (at level own: the risks they or their groups own).
 */

type Level = { value: number; name: string };
export type Side = 'inherent' | 'residual';
export interface Band {
  name: string;
  color: string;
}

export interface HeatMapCell {
  likelihood: number;
  impact: number;
  score: number | null;
  band: Band | null;
  count: number;
}

export interface RiskHeatMap {
  /** Likelihood levels, highest first (the map's rows, top to bottom). */
  likelihood: Level[];
  /** Impact levels, lowest first (the map's columns, left to right). */
  impact: Level[];
  inherent: HeatMapCell[];
  residual: HeatMapCell[];
  /** Open risks per band, inherent and residual, in band order (lowest scores first). */
  bands: (Band & { minScore: number; maxScore: number; inherent: number; residual: number })[];
  /** Open risks the viewer may read, and how many of them have no residual rating. */
  total: number;
  residualUnrated: number;
}

/** Open risks only: closed and archived risks are not the current posture. */
const OPEN = eq(risks.status, 'open');

type HeatMapRow = { side: Side; likelihood: number | null; impact: number | null; n: number };

/**
 * The heat map's counts as one statement (exported so the benchmark times the same SQL through the driver): the open
 * risks' counts the database keeps per owner, owner group and ratings (migration 0050), narrowed by the viewer's level
 * on those owner columns and summed twice (grouping sets): by inherent cell and by residual cell. A few dozen rows,
 * however many risks there are.
 */
export function riskHeatMapQuery(actor: Actor) {
  const c = riskOpenCells;
  const visible = ownershipCondition(actor, 'risks:read', c.ownerId, c.ownerGroupId);
  return sql`
      select case when grouping(${c.inherentLikelihood}, ${c.inherentImpact}) = 0 then 'inherent' else 'residual' end as side,
        coalesce(${c.inherentLikelihood}, ${c.residualLikelihood}) as likelihood,
        coalesce(${c.inherentImpact}, ${c.residualImpact}) as impact, sum(${c.n})::int as n
      from ${c} where ${and(sql`${c.n} <> 0`, visible)}
      group by grouping sets ((${c.inherentLikelihood}, ${c.inherentImpact}), (${c.residualLikelihood}, ${c.residualImpact}))
      having sum(${c.n}) <> 0`;
}

/**
 * The open risks the viewer may read per cell, inherent and residual, from their kept counts. The residual group whose
 * levels are null counts the risks not rated yet.
 */
export async function riskHeatMap(db: DbOrTx, actor: Actor): Promise<RiskHeatMap> {
  const [lookups, rows] = await Promise.all([loadRiskLookups(db), selectRows<HeatMapRow>(db, riskHeatMapQuery(actor))]);
  const byValue = (a: Level, b: Level) => a.value - b.value;
  const likelihood = [...lookups.likelihood].map(([value, name]) => ({ value, name })).sort(byValue).reverse();
  const impact = [...lookups.impact].map(([value, name]) => ({ value, name })).sort(byValue);
  const bandOf = (score: number | null) => (score === null ? null : lookups.bands.find((b) => score >= b.minScore && score <= b.maxScore) ?? null);
  const counts = { inherent: new Map<string, number>(), residual: new Map<string, number>() };
  let residualUnrated = 0;
  for (const row of rows) {
    if (row.likelihood === null || row.impact === null) residualUnrated += row.n;
    else counts[row.side].set(`${row.likelihood}:${row.impact}`, row.n);
  }
  const cellsOf = (side: Side): HeatMapCell[] => likelihood.flatMap((l) => impact.map((i) => {
    const score = lookups.cells.get(`${l.value}:${i.value}`) ?? null;
    const band = bandOf(score);
    return { likelihood: l.value, impact: i.value, score, band: band && { name: band.name, color: band.color }, count: counts[side].get(`${l.value}:${i.value}`) ?? 0 };
  }));
  const inherent = cellsOf('inherent');
  const residual = cellsOf('residual');
  const inBand = (cells: HeatMapCell[], name: string) => cells.filter((c) => c.band?.name === name).reduce((sum, c) => sum + c.count, 0);
  const total = [...counts.inherent.values()].reduce((sum, n) => sum + n, 0);
  return {
    likelihood, impact, inherent, residual, total, residualUnrated,
    bands: lookups.bands.map((b) => ({ ...b, inherent: inBand(inherent, b.name), residual: inBand(residual, b.name) })),
  };
}

/** The list of risks in one cell of the map (the address a cell links to). */
export const cellHref = (side: Side, likelihood: number, impact: number) =>
  `/risks?status=open&${side}Likelihood=${likelihood}&${side}Impact=${impact}`;

/** The list of risks in one band. */
export const bandHref = (side: Side, band: string) => `/risks?status=open&${side}Band=${encodeURIComponent(band)}`;

/** The day a risk's next review falls due: a column kept by the database's triggers, outside the Drizzle schema. */
const NEXT_REVIEW_DUE = sql`${risks}.next_review_due`;

/** Risk reviews and treatments that come due, of the risks the viewer may read. */
export const riskDueSoon: DueSoonKind[] = [
  {
    key: 'riskReviewsDue', label: 'Risk reviews', needs: 'risks:read', href: '/risks?status=open', itemHref: (id) => `/risks/${id}`,
    // next_review_due (migration 0043) is the last review (else the creation day) plus the frequency, kept by triggers
    // and indexed: a range read, not every open risk's last review.
    query: (actor, until) => {
      requirePermission(actor, 'risks:read');
      return sql`select ${risks.id}::text as record_id, ${risks.title} as title, ${NEXT_REVIEW_DUE} as due_on
        from ${risks}
        where ${NEXT_REVIEW_DUE} <= ${until} and ${and(OPEN, ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId))}`;
    },
    // Counted from the open risks' review days the database keeps per owner (migration 0050): a third of 100,000 risks
    // overdue is a few hundred day rows, not 33,000 risks.
    counts: (actor, today, until) => {
      const d = riskReviewDueDays;
      return sql`select coalesce(sum(${d.n}) filter (where ${d.dueOn} < ${today}), 0)::int as overdue,
          coalesce(sum(${d.n}) filter (where ${d.dueOn} >= ${today}), 0)::int as soon
        from ${d} where ${and(sql`${d.dueOn} <= ${until}`, ownershipCondition(actor, 'risks:read', d.ownerId, d.ownerGroupId))}`;
    },
  },
  {
    // A treatment is read through its risk: its screen is the risk's treatments page.
    key: 'riskTreatmentsDue', label: 'Risk treatments', needs: 'risks:read', href: '/risks?status=open', itemHref: (id) => `/risks/${id}/treatments`,
    query: (actor, until) => sql`select ${risks.id}::text as record_id, ${riskTreatments.title} || ' (' || ${risks.title} || ')' as title, ${riskTreatments.dueOn} as due_on
      from ${riskTreatments} join ${risks} on ${risks.id} = ${riskTreatments.riskId}
      where ${and(eq(riskTreatments.status, 'planned'), ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId))}
        and ${riskTreatments.dueOn} <= ${until}`,
  },
];
