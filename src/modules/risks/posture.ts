import { eq, min, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { history, risks } from '../../../db/schema';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import { dayEnd, type PostureKind } from '../../platform/dashboard/posture';
import { bandHref } from './dashboard';
import { loadRiskLookups } from './service';

/**
 * Open risks per band as they stood at the end of past days, from History (docs/dashboard.md, "Posture at a past
 * date"). A risk's status and ratings at a moment are the `after` of the last History entry that changed each of them
 * before the moment (creation sets them all, deletion sets them to nothing). The scores and bands are today's scale:
 * the configuration of the past is not replayed.
 */

/** The fields a risk's place on the map depends on, as History names them. */
const FIELDS = ['status', 'inherentLikelihood', 'inherentImpact', 'residualLikelihood', 'residualImpact'] as const;

type Row = { bucket: number; il: number | null; ii: number | null; rl: number | null; ri: number | null; delta: number };

/**
 * The statement: one read of the risks' History up to the last day's end, in the order of history_record_idx (type,
 * record, time, id), so the one window over each risk needs no sort. Each entry's fields are carried forward (a
 * field's value is the `after` of the last entry so far that set it), giving the risk's state from each entry on. Each
 * open state adds one to its ratings' count from its entry and takes it away at the risk's next entry; the changes are
 * summed per day bucket (`width_bucket` over the sorted day ends) and per ratings, and the caller adds the buckets up.
 * At level own, the risks the viewer (or their groups) own today.
 */
export function riskBandsAtQuery(actor: Actor, days: readonly string[]) {
  requirePermission(actor, 'risks:read');
  const visible = ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId);
  const ends = days.map((d) => dayEnd(d).toISOString()).sort();
  const last = ends[ends.length - 1];
  const fields = `{${FIELDS.join(',')}}`;
  const set = (key: string) => sql.raw(`h.changes ? '${key}'`);
  const after = (key: string) => sql.raw(`h.changes -> '${key}' ->> 'after'`);
  // The value set by the last entry so far that set the field: the n-th of the values set, n their count so far.
  const carried = (value: string, flag: string) => sql.raw(`(array_agg(${value}) filter (where ${flag}) over w)[count(*) filter (where ${flag}) over w]`);
  return sql`
    with ev as (
      select h.record_id, h.at, h.id,
        ${set('status')} as hs, ${after('status')} as s,
        ${set('inherentLikelihood')} as hil, (${after('inherentLikelihood')})::int as il,
        ${set('inherentImpact')} as hii, (${after('inherentImpact')})::int as ii,
        ${set('residualLikelihood')} as hrl, (${after('residualLikelihood')})::int as rl,
        ${set('residualImpact')} as hri, (${after('residualImpact')})::int as ri
      from ${history} h
      where h.record_type = 'risk' and h.at < ${last}::timestamptz and h.changes ?| ${fields}::text[]
        ${visible ? sql`and h.record_id in (select ${risks.id}::text from ${risks} where ${visible})` : sql``}
    ),
    st as (
      select at, lead(at) over w as next_at, ${carried('s', 'hs')} as s, ${carried('il', 'hil')} as il, ${carried('ii', 'hii')} as ii,
        ${carried('rl', 'hrl')} as rl, ${carried('ri', 'hri')} as ri
      from ev window w as (partition by record_id order by at, id)
    )
    select width_bucket(x.at, ${`{${ends.join(',')}}`}::timestamptz[]) as bucket, il, ii, rl, ri, sum(x.d)::int as delta
    from st cross join lateral (values (st.at, 1), (st.next_at, -1)) x(at, d)
    where st.s = 'open' and x.at < ${last}::timestamptz
    group by 1, il, ii, rl, ri`;
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
