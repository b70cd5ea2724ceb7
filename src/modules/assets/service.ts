import { eq, sql } from 'drizzle-orm';
import { assets, incidents, risks } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import { referencedBy, type RecordKind } from '../../platform/records/records';
import { requireReadableLink } from '../../platform/records/links';
import { businessUnitKind } from '../businessUnits/service';
import type { AssetCreate } from './schema';
import { isUuid } from '../../platform/core/uuid';
import { ownerNameSort } from '../../platform/records/sort-keys';


export const assetKind: RecordKind<typeof assets, AssetCreate> = {
  module: 'assets',
  recordType: 'asset',
  label: 'Asset',
  table: assets,
  titleColumn: assets.name,
  sortable: { name: assets.name, owner: ownerNameSort, createdAt: assets.createdAt, updatedAt: assets.updatedAt },
  defaults: { description: '', businessUnitId: null },
  filters: { businessUnitId: (value) => (isUuid(value) ? eq(assets.businessUnitId, value) : sql`false`) },
  toColumns: (c) => ({ ...c, name: c.name.trim() }),
  async check(db, candidate, before, actor) {
    const problems: FieldProblem[] = [];
    if (!candidate.name.trim()) problems.push({ field: 'name', message: 'must not be blank' });
    // Linking needs businessUnits:read on the unit; a link kept unchanged on update is not re-checked.
    await requireReadableLink(db, actor, businessUnitKind, 'businessUnitId', candidate.businessUnitId, before?.businessUnitId);
    return problems;
  },
  references: [
    referencedBy({ one: 'risk', many: 'risks' }, risks, risks.assetId, { kind: 'risk', id: risks.id }),
    referencedBy({ one: 'incident', many: 'incidents' }, incidents, incidents.assetId, { kind: 'incident', id: incidents.id }),
  ],
};
