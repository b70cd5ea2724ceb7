import { eq, min, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { history, riskOpenDayDeltas, riskOpenSpans, risks } from '../../../db/schema';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import { dayEnd, type PostureKind } from '../../platform/dashboard/posture';
import { bandHref } from './dashboard';
import { loadRiskLookups } from './service';

/**
 * Open risks per band as they stood at the end of past days, from History (docs/dashboard.md, "Posture at a past
 * date"). A risk's status and ratings at a moment are the `after` of the last History entry that changed each of them
 * before the moment (creation sets them all, deletion sets them to nothing). The database keeps that reading of History
 * as History is written (migration 0050), so a trend reads spans and day sums, not every change. The scores and bands
 * are today's scale: the configuration of the past is not replayed.
 */

type Row = { bucket: number; il: number | null; ii: number | null; rl: number | null; ri: number | null; delta: number };

/**
 * The statement, over what the database derives from History as it is written (migration 0050): each risk's open spans
 * (from the last entry that set each of its status and four ratings, as History says) and their sums per UTC day and
 * ratings. At level all it reads the day sums up to the last day asked: (days x ratings) rows, whatever the number of
 * risks. At level own it reads the spans of the risks the viewer (or their groups) own today: +1 where a span starts,
 * -1 where it ends. Either way the changes are summed per day bucket (`width_bucket` over the sorted day ends) and per
 * ratings, and the caller adds the buckets up. A rating not set reads as null.
 */
export function riskBandsAtQuery(actor: Actor, days: readonly string[]) {
  requirePermission(actor, 'risks:read');
  const visible = ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId);
  const ends = days.map((d) => dayEnd(d).toISOString()).sort();
  const last = ends[ends.length - 1];
  const buckets = `{${ends.join(',')}}`;
  if (!visible) {
    // A day's sums are of changes on that UTC day: its 00:00 falls in the same bucket as every moment of it.
    const startOfDay = sql`(${riskOpenDayDeltas.day}::timestamp at time zone 'UTC')`;
    return sql`
      select width_bucket(${startOfDay}, ${buckets}::timestamptz[]) as bucket,
        nullif(${riskOpenDayDeltas.inherentLikelihood}, 0) as il, nullif(${riskOpenDayDeltas.inherentImpact}, 0) as ii,
        nullif(${riskOpenDayDeltas.residualLikelihood}, 0) as rl, nullif(${riskOpenDayDeltas.residualImpact}, 0) as ri,
        sum(${riskOpenDayDeltas.delta})::int as delta
      from ${riskOpenDayDeltas}
      where ${startOfDay} < ${last}::timestamptz
      group by 1, 2, 3, 4, 5`;
  }
  return sql`
    select width_bucket(x.at, ${buckets}::timestamptz[]) as bucket,
      s.inherent_likelihood as il, s.inherent_impact as ii, s.residual_likelihood as rl, s.residual_impact as ri, sum(x.d)::int as delta
    from ${riskOpenSpans} s cross join lateral (values (s.from_at, 1), (s.to_at, -1)) x(at, d)
    where x.at < ${last}::timestamptz and s.risk_id in (select ${risks.id}::text from ${risks} where ${visible})
    group by 1, 2, 3, 4, 5`;
}

export interface BandCounts {
  band: string;
  inherent: number;
  residual: number;
}

/** Open risks per band (inherent and residual) at the end of each day given, one list per day, bands lowest first. */
export async function riskBandsAt(db: DbOrTx, actor: Actor, days: readonly string[]): Promise<BandCounts[][]> {
  if (days.length === 0) return [];
  const [lookups, rows] = await Promise.all([loadRiskLookups(db), selectRows<Row>(db, riskBandsAtQuery(actor, days))]);
  const bandOf = (l: number | null, i: number | null) => {
    const score = l === null || i === null ? undefined : lookups.cells.get(`${l}:${i}`);
    return score === undefined ? undefined : lookups.bands.find((b) => score >= b.minScore && score <= b.maxScore)?.name;
  };
  // A change in bucket b (b day ends at or before it) counts at every day whose end is after it: the (b+1)-th and later.
  const sorted = days.map((d) => dayEnd(d).toISOString()).sort();
  const result = days.map((day) => {
    const before = sorted.indexOf(dayEnd(day).toISOString()) + 1;
    const counts = lookups.bands.map((b) => ({ band: b.name, inherent: 0, residual: 0 }));
    for (const row of rows) {
      if (row.bucket >= before) continue;
      const inherent = counts.find((c) => c.band === bandOf(row.il, row.ii));
      if (inherent) inherent.inherent += row.delta;
      const residual = counts.find((c) => c.band === bandOf(row.rl, row.ri));
      if (residual) residual.residual += row.delta;
    }
    return counts;
  });
  return result;
}

const risksWord = (n: number) => `${n.toLocaleString('en')} open ${n === 1 ? 'risk' : 'risks'}`;

/** The risks module's posture: open risks per band, inherent then residual, at each day's end. */
export const riskPosture: PostureKind[] = [{
  key: 'riskBands', title: 'Open risks by band', needs: 'risks:read',
  async firstEntry(db) {
    const [row] = await db.select({ at: min(history.at) }).from(history).where(eq(history.recordType, 'risk'));
    return row?.at ? new Date(row.at) : null;
  },
  async at(db, viewer, days) {
    const counts = await riskBandsAt(db, viewer, days);
    const bands = (await loadRiskLookups(db)).bands;
    return {
      unit: 'count',
      columns: [
        ...bands.map((b) => ({ label: b.name, group: 'Inherent', href: bandHref('inherent', b.name) })),
        ...bands.map((b) => ({ label: b.name, group: 'Residual', href: bandHref('residual', b.name) })),
      ],
      rows: counts.map((day) => [
        ...day.map((c) => ({ value: c.inherent, text: `${risksWord(c.inherent)} in ${c.band} (inherent)` })),
        ...day.map((c) => ({ value: c.residual, text: `${risksWord(c.residual)} in ${c.band} (residual)` })),
      ]),
    };
  },
}];
