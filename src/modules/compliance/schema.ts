import { t, type Static } from 'elysia';
import { exactly } from '../../platform/envelopes';
import { recordInputs, recordListQuery, recordView } from '../../platform/record-schema';
import { stringEnum } from '../../platform/schema-helpers';

export const ITEM_KINDS = ['requirement', 'additional', 'heading'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** Record types of the Audit Log and History: a package's items and analyses each have their own trail. */
export const ITEM_RECORD_TYPE = 'complianceItem';
export const ANALYSIS_RECORD_TYPE = 'complianceAnalysis';

export const PACKAGE_LIMITS = {
  items: 10_000,
  code: 100,
  name: 300,
  standard: 300,
  version: 100,
  description: 100_000,
} as const;

/**
 * One item of a package file. The same shape is read from JSON, built from a CSV row and written by export,
 * so an exported package imports back to the identical tree.
 */
export const PackageItem = t.Object({
  code: t.String({ maxLength: PACKAGE_LIMITS.code, description: 'Required; unique within the package' }),
  name: t.String({ maxLength: PACKAGE_LIMITS.name, description: 'Required' }),
  description: t.Optional(t.String({ maxLength: PACKAGE_LIMITS.description })),
  parentCode: t.Optional(t.Union([t.String({ maxLength: PACKAGE_LIMITS.code }), t.Null()], {
    description: 'Code of another item in the same package; no cycles. Blank or null: a top-level item',
  })),
  kind: t.Optional(t.Union([stringEnum(ITEM_KINDS), t.Literal(''), t.Null()], {
    description: 'requirement (blank means this; counts toward compliance), additional (counted separately) or heading (structure only)',
  })),
}, { additionalProperties: false });
export type PackageItem = Static<typeof PackageItem>;

/** The package JSON: what POST /compliance/packages takes and GET /compliance/packages/:id/export answers. */
export const PackageInput = t.Object({
  name: t.String({ maxLength: PACKAGE_LIMITS.name, description: 'Required' }),
  standard: t.Optional(t.String({ maxLength: PACKAGE_LIMITS.standard })),
  version: t.Optional(t.String({ maxLength: PACKAGE_LIMITS.version, description: "The framework's own version, not the service's" })),
  description: t.Optional(t.String({ maxLength: PACKAGE_LIMITS.description })),
  items: t.Array(PackageItem, { minItems: 1, maxItems: PACKAGE_LIMITS.items, description: 'At least one, at most 10,000 items, in file order' }),
}, { additionalProperties: false });
export type PackageInput = Static<typeof PackageInput>;

/**
 * One reason a package file is refused. `index` is the item's position in `items` (from 0) for JSON;
 * `line` is the file line for CSV; package-level problems (name, item count) carry neither.
 */
export const PackageProblem = t.Object({
  index: t.Optional(t.Integer()),
  line: t.Optional(t.Integer()),
  code: t.Optional(t.String()),
  field: t.String(),
  message: t.String(),
});
export type PackageProblem = Static<typeof PackageProblem>;

export const PackageRefused = exactly(t.Object({ error: t.String(), problems: t.Array(PackageProblem) }, {
  description: 'The whole package is refused and nothing is written; every problem is listed',
}));

/** The package's own fields that can change after import (the item tree cannot: import a new version instead). */
const packageFields = {
  name: t.String({ minLength: 1, maxLength: PACKAGE_LIMITS.name }),
  standard: t.Optional(t.String({ maxLength: PACKAGE_LIMITS.standard })),
  version: t.Optional(t.String({ maxLength: PACKAGE_LIMITS.version })),
  description: t.Optional(t.String({ maxLength: PACKAGE_LIMITS.description })),
};
export const { Create: PackageFields, Update: PackageUpdate } = recordInputs(packageFields);
export type PackageFields = Static<typeof PackageFields>;
export type PackageUpdate = Static<typeof PackageUpdate>;

export const ItemCounts = t.Object({
  total: t.Integer(),
  requirement: t.Integer(),
  additional: t.Integer(),
  heading: t.Integer(),
});
export type ItemCounts = Static<typeof ItemCounts>;

export const PackageView = recordView({
  name: t.String(),
  standard: t.String(),
  version: t.String(),
  description: t.String(),
  createdBy: t.Union([t.String(), t.Null()]),
  itemCounts: ItemCounts,
});
export type PackageView = Static<typeof PackageView>;

export const PACKAGE_SORTS = ['name', 'standard', 'version', 'createdAt', 'updatedAt'] as const;
export const PackageListQuery = recordListQuery(PACKAGE_SORTS, null);
export type PackageListQuery = Static<typeof PackageListQuery>;

/** Package name, standard and version come from the import dialog (or the query string), the items from the CSV file. */
export const PackageCsvQuery = t.Object({
  name: t.Optional(t.String({ description: 'Package name (required; a missing name is listed with the file\'s problems)' })),
  standard: t.Optional(t.String()),
  version: t.Optional(t.String()),
  description: t.Optional(t.String()),
});
export type PackageCsvQuery = Static<typeof PackageCsvQuery>;
