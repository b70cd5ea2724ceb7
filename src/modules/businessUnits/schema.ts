import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';

const businessUnitFields = {
  name: t.String({ minLength: 1, maxLength: 300, description: 'Unique among the units that share its parent (ignoring case)' }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  parentId: t.Optional(t.Union([Uuid, t.Null()], { description: 'The parent unit; none for a top-level unit. A unit cannot become its own ancestor.' })),
};
export const { Create: BusinessUnitCreate, Update: BusinessUnitUpdate } = recordInputs(businessUnitFields);
export type BusinessUnitCreate = Static<typeof BusinessUnitCreate>;
export type BusinessUnitUpdate = Static<typeof BusinessUnitUpdate>;

export const BusinessUnitView = recordView({
  name: t.String(),
  description: t.String(),
  parentId: t.Union([t.String(), t.Null()]),
});
export type BusinessUnitView = Static<typeof BusinessUnitView>;

export const BUSINESS_UNIT_SORTS = ['name', 'owner', 'createdAt', 'updatedAt'] as const;
export const BusinessUnitListQuery = recordListQuery(BUSINESS_UNIT_SORTS, null, {
  parentId: t.Optional(Uuid),
});

/**
 * One unit of the hierarchy, listed depth-first (every unit right after its parent, siblings by name), so a flat
 * response still reads as a tree. At level own, a readable unit whose parent is not readable appears at depth 0.
 */
export const BusinessUnitTreeEntry = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.String(),
  parentId: t.Union([t.String(), t.Null()]),
  depth: Type.Integer({ minimum: 0, description: '0 for a top-level unit' }),
  path: t.Array(t.String(), { description: 'Names from the top-level unit down to this one' }),
  ownerId: t.Union([t.String(), t.Null()]),
  ownerGroupId: t.Union([t.String(), t.Null()]),
});
export type BusinessUnitTreeEntry = Static<typeof BusinessUnitTreeEntry>;
