import { t, type Static } from 'elysia';
import { exampleOwnership, recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';

const assetFields = {
  name: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  businessUnitId: t.Optional(t.Union([Uuid, t.Null()], { description: 'A business unit you can read' })),
};
export const { Create: AssetCreate, Update: AssetUpdate } = recordInputs(assetFields);
export type AssetCreate = Static<typeof AssetCreate>;
export type AssetUpdate = Static<typeof AssetUpdate>;

export const AssetView = recordView({
  name: t.String(),
  description: t.String(),
  businessUnitId: t.Union([t.String(), t.Null()]),
});
export type AssetView = Static<typeof AssetView>;

/** Examples the OpenAPI document shows for the create body and a listed row. */
export const assetExamples = {
  create: { name: 'File server cluster', description: 'Shared drives of the head office', businessUnitId: null } satisfies AssetCreate,
  row: { id: '1f8d3b6a-9e2c-4d7f-8b1a-5c3e7d9f2a60', name: 'File server cluster', description: 'Shared drives of the head office', businessUnitId: null, ...exampleOwnership } satisfies AssetView,
};

export const ASSET_SORTS = ['name', 'owner', 'createdAt', 'updatedAt'] as const;
export const AssetListQuery = recordListQuery(ASSET_SORTS, null, {
  businessUnitId: t.Optional(Uuid),
});
