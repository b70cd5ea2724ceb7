import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { exactly } from '../../platform/http/envelopes';
import { listQuery, PageQuery } from '../../platform/http/paging';
import { NullableUuid, ownerView, recordInputs, recordListQuery, recordView, Uuid } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';

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
  index: t.Optional(Type.Integer()),
  line: t.Optional(Type.Integer()),
  code: t.Optional(t.String()),
  field: t.String(),
  message: t.String(),
});
export type PackageProblem = Static<typeof PackageProblem>;

export const PackageRefused = exactly(t.Object({
  error: t.String(),
  problems: t.Optional(t.Array(PackageProblem, { description: 'Every problem of the package; absent when the body could not be read as JSON' })),
}, {
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
  total: Type.Integer(),
  requirement: Type.Integer(),
  additional: Type.Integer(),
  heading: Type.Integer(),
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

export const PACKAGE_SORTS = ['name', 'standard', 'version', 'headings', 'requirements', 'additional', 'owner', 'createdAt', 'updatedAt'] as const;
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

/* ---- Analyses, mappings and the package score (route validation and OpenAPI) ---- */

export const ANALYSIS_STATUSES = ['not_assessed', 'compliant', 'partially_compliant', 'non_compliant', 'not_applicable'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

const Person = t.Union([t.Object({ id: t.String(), name: t.String(), email: t.String() }), t.Null()]);
const Counts = t.Object({ controls: Type.Integer(), policies: Type.Integer(), risks: Type.Integer(), projects: Type.Integer() });
const Linked = t.Object({ id: t.String(), title: t.String(), status: t.String() });

export const AnalysisView = t.Object({
  id: t.String(),
  packageId: t.String(),
  package: t.Object({ id: t.String(), name: t.String() }),
  itemId: t.String(),
  item: t.Object({ code: t.String(), name: t.String(), description: t.String(), kind: t.String(), parentCode: t.Union([t.String(), t.Null()]) }),
  status: stringEnum(ANALYSIS_STATUSES),
  notes: t.String(),
  applicable: t.Boolean({ description: 'Statement of Applicability: whether the requirement applies' }),
  justification: t.String({ description: 'Why it applies or does not' }),
  assessorId: t.Union([t.String(), t.Null()]),
  assessor: Person,
  assessedAt: t.Union([t.String(), t.Null()]),
  mappingCounts: t.Object({ ...Counts.properties }, { description: 'How many records of each kind are mapped (whether or not you can read them)' }),
  ...ownerView,
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type AnalysisView = Static<typeof AnalysisView>;

export const AnalysisDetail = t.Composite([AnalysisView, t.Object({
  mappings: t.Object({
    controls: t.Array(Linked), policies: t.Array(Linked), risks: t.Array(Linked), projects: t.Array(Linked),
  }, { description: 'Mapped records you can read (a module you hold no read right on shows none)' }),
})]);
export type AnalysisDetail = Static<typeof AnalysisDetail>;

export const AnalysisUpdate = t.Partial(t.Object({
  status: stringEnum(ANALYSIS_STATUSES),
  notes: t.String({ maxLength: 100_000 }),
  applicable: t.Boolean({ description: 'Statement of Applicability: false when the requirement does not apply here (a justification is then required)' }),
  justification: t.String({ maxLength: 10_000, description: 'Why the requirement applies or does not; required (not blank) when applicable is false' }),
  assessorId: NullableUuid,
  ownerId: NullableUuid,
  ownerGroupId: NullableUuid,
}), {
  additionalProperties: false, minProperties: 1,
  description: 'Changing status or notes records an assessment: assessor defaults to you and assessedAt is set to now. Applicability and justification are recorded without an assessment',
});
export type AnalysisUpdate = Static<typeof AnalysisUpdate>;

export const ANALYSIS_SORTS = ['position', 'status', 'assessedAt', 'updatedAt'] as const;
export const AnalysisListQuery = listQuery(ANALYSIS_SORTS, {
  packageId: t.Optional(Uuid),
  status: t.Optional(stringEnum(ANALYSIS_STATUSES)),
  kind: t.Optional(stringEnum(['requirement', 'additional'] as const)),
});
export type AnalysisListQuery = Static<typeof AnalysisListQuery>;

export const LinkBody = t.Object({ id: Uuid }, { additionalProperties: false });

/** What an analysis maps, in this order; the service's MAPPING_KINDS has one definition per name. */
export const MAPPING_KIND_NAMES = ['controls', 'policies', 'risks', 'projects'] as const;
export type MappingKind = (typeof MAPPING_KIND_NAMES)[number];

/** One item of POST /compliance/mappings/batch. */
export const MappingBatchItem = t.Object({
  analysisId: Uuid,
  kind: stringEnum(MAPPING_KIND_NAMES, { description: 'What is mapped: controls, policies, risks or projects' }),
  id: Uuid,
}, { additionalProperties: false });

const StatusCounts = t.Object({
  total: Type.Integer(), not_assessed: Type.Integer(), compliant: Type.Integer(), partially_compliant: Type.Integer(),
  non_compliant: Type.Integer(), not_applicable: Type.Integer(),
  applicable: Type.Integer({ description: 'total minus not_applicable' }),
  percentCompliant: t.Union([t.Number(), t.Null()], {
    description: 'compliant / applicable × 100, one decimal; not assessed items count against it; null when nothing is applicable',
  }),
  percentAssessed: t.Union([t.Number(), t.Null()], { description: '(applicable − not_assessed) / applicable × 100, one decimal' }),
});
export type StatusCounts = Static<typeof StatusCounts>;

export const PackageScore = t.Object({
  packageId: t.String(),
  requirements: StatusCounts,
  additional: t.Composite([StatusCounts], { description: 'Additional items, counted separately; headings are not counted' }),
});
export type PackageScore = Static<typeof PackageScore>;

export const KindParam = t.Object({ id: t.String({ format: 'uuid' }), recordId: t.String({ format: 'uuid' }) });

/* ---- The POA&M register (read only) ---- */

export const POAM_SOURCES = ['compliance', 'audit', 'controlTest'] as const;
export type PoamSource = (typeof POAM_SOURCES)[number];
export const POAM_SEVERITIES = ['high', 'medium', 'low'] as const;
export type PoamSeverity = (typeof POAM_SEVERITIES)[number];
export const POAM_STATUSES = ['open', 'in_remediation'] as const;

export const PoamItem = t.Object({
  id: t.String({ description: '<source>:<sourceId>' }),
  source: stringEnum(POAM_SOURCES),
  sourceId: t.String({ description: 'The analysis, audit finding or control test' }),
  title: t.String(),
  reference: t.String({ description: 'The package, audit plan or control' }),
  weakness: t.String({ description: 'What is wrong: the analysis status, "audit finding", or the failed test' }),
  severity: stringEnum(POAM_SEVERITIES),
  status: stringEnum(POAM_STATUSES),
  dueDate: t.Union([t.String(), t.Null()]),
  overdue: t.Boolean({ description: 'dueDate is before today (UTC)' }),
  owner: t.Union([t.String(), t.Null()]),
  ownerId: t.Union([t.String(), t.Null()], { description: 'The owner (a person) of the analysis, finding or control' }),
  link: t.String({ description: 'Screen address of the source record' }),
});
export type PoamItem = Static<typeof PoamItem>;

/** How the POA&M may be ordered besides its own order (overdue first, then by due date): a column, "-" first for descending. */
export const POAM_SORTS = ['title', 'source', 'reference', 'severity', 'status', 'dueDate', 'owner'] as const;

export const PoamQuery = t.Object({
  ...PageQuery.properties,
  status: t.Optional(stringEnum(POAM_STATUSES)),
  severity: t.Optional(stringEnum(POAM_SEVERITIES)),
  source: t.Optional(stringEnum(POAM_SOURCES)),
  overdue: t.Optional(stringEnum(['true', 'false'] as const)),
  ownerId: t.Optional(Uuid),
  q: t.Optional(t.String({ maxLength: 200, description: 'Words of the title or the reference' })),
  sort: t.Optional(stringEnum(POAM_SORTS.flatMap((s) => [s, `-${s}`]), { description: 'A column, "-" first for descending; overdue first, then by due date, when left out' })),
});
export type PoamQuery = Static<typeof PoamQuery>;

/* ---- The cross-framework view (two packages' requirements sharing mapped controls) ---- */

export const CROSSWALK_SIDES = ['left', 'right'] as const;

export const CrosswalkQuery = t.Object({
  left: Uuid,
  right: t.String({ format: 'uuid', description: 'Another package than left' }),
});

const CrosswalkSide = t.Object({ analysisId: t.String(), code: t.String(), name: t.String(), status: stringEnum(ANALYSIS_STATUSES) });
const PackageRef = t.Object({ id: t.String(), name: t.String() });

export const CrosswalkPair = t.Object({
  left: CrosswalkSide,
  right: CrosswalkSide,
  controls: t.Array(t.Object({
    id: t.Union([t.String(), t.Null()]),
    name: t.String({ description: '"(restricted)" (and id null) for a control the caller may not read' }),
  }), { description: 'The mapped controls the two requirements share, by name; restricted ones last' }),
});

export const Crosswalk = t.Object({ left: PackageRef, right: PackageRef, pairs: t.Array(CrosswalkPair) });

export const StatusCopyBody = t.Object({
  left: Uuid,
  right: Uuid,
  from: stringEnum(CROSSWALK_SIDES, { description: 'The package whose statuses are copied onto the other' }),
});

export const StatusCopyPreview = t.Composite([Crosswalk, t.Object({
  from: stringEnum(CROSSWALK_SIDES),
  changes: t.Array(t.Object({
    analysisId: t.String(), code: t.String(), name: t.String(), before: stringEnum(ANALYSIS_STATUSES), after: stringEnum(ANALYSIS_STATUSES),
    from: t.Array(t.String(), { description: 'Codes of the requirements of the other package the status comes from' }),
  })),
  skipped: t.Array(t.Object({ analysisId: t.String(), code: t.String(), name: t.String(), reason: t.String() })),
})]);

export const StatusCopyApply = t.Composite([StatusCopyBody, t.Object({
  changes: t.Array(t.Array(t.String(), { minItems: 3, maxItems: 3 }), {
    maxItems: 10_000, description: 'The preview\'s changes as [analysisId, before, after]; they must still be exactly what a preview gives (else 409)',
  }),
})]);

export const StatusCopyResult = t.Object({ changed: Type.Integer({ description: 'Requirements whose status was copied' }) });
