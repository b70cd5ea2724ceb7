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

type Row = { n: number; il: number | null; ii: number | null; rl: number | null; ri: number | null; count: number };

/**
 * The statement: each field's values with the interval each held ([since, until)), from one read of the risks' History
 * up to the last day's end (history_type_at_idx), then the risks as they stood at each day's end, grouped by their
 * open ratings. At level own, the risks the viewer (or their groups) own today.
 */
export function riskBandsAtQuery(actor: Actor, days: readonly string[]) {
  requirePermission(actor, 'risks:read');
  const visible = ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId);
  const ends = days.map((d) => dayEnd(d).toISOString());
  const last = ends.reduce((a, b) => (a > b ? a : b));
  const fields = `{${FIELDS.join(',')}}`;
  const value = (key: string) => sql.raw(`max((iv.v #>> '{}')::int) filter (where iv.key = '${key}')`);
  return sql`
    with ev as (
      select h.record_id, h.id, h.at, e.key, e.value -> 'after' as v
      from ${history} h cross join lateral jsonb_each(h.changes) e(key, value)
      where h.record_type = 'risk' and h.at < ${last}::timestamptz and e.key = any(${fields}::text[])
        ${visible ? sql`and h.record_id in (select ${risks.id}::text from ${risks} where ${visible})` : sql``}
    ),
    iv as (select record_id, key, v, at as since, lead(at) over (partition by record_id, key order by at, id) as until from ev),
    st as (
      select d.n, iv.record_id,
        max(iv.v #>> '{}') filter (where iv.key = 'status') as status,
        ${value('inherentLikelihood')} as il, ${value('inherentImpact')} as ii, ${value('residualLikelihood')} as rl, ${value('residualImpact')} as ri
      from unnest(${`{${ends.join(',')}}`}::timestamptz[]) with ordinality d(day_end, n)
      join iv on iv.since < d.day_end and (iv.until is null or iv.until >= d.day_end)
      group by d.n, iv.record_id
    )
    select n::int as n, il, ii, rl, ri, count(*)::int as count from st where status = 'open' group by n, il, ii, rl, ri`;
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
  const result = days.map(() => lookups.bands.map((b) => ({ band: b.name, inherent: 0, residual: 0 })));
  for (const row of rows) {
    const counts = result[row.n - 1];
    const inherent = counts.find((c) => c.band === bandOf(row.il, row.ii));
    if (inherent) inherent.inherent += row.count;
    const residual = counts.find((c) => c.band === bandOf(row.rl, row.ri));
    if (residual) residual.residual += row.count;
  }
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
