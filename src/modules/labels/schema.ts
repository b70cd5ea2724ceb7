import { t, type Static } from 'elysia';
import { listQuery } from '../../platform/http/paging';

const Color = t.String({ pattern: '^#[0-9a-fA-F]{6}$', description: '#rrggbb; #888888 when left out' });

export const LabelInput = t.Object({
  name: t.String({ minLength: 1, maxLength: 80, description: 'Unique, ignoring case' }),
  color: t.Optional(Color),
  description: t.Optional(t.String({ maxLength: 2000 })),
}, { additionalProperties: false });
export type LabelInput = Static<typeof LabelInput>;
export const LabelPatch = t.Partial(LabelInput, { additionalProperties: false, minProperties: 1 });
export type LabelPatch = Static<typeof LabelPatch>;

export const LabelView = t.Object({
  id: t.String(),
  name: t.String(),
  color: t.String(),
  description: t.String(),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type LabelView = Static<typeof LabelView>;

export const LabelListQuery = listQuery(['name', 'createdAt'] as const, {});
export type LabelListQuery = Static<typeof LabelListQuery>;
