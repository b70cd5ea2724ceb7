import { Kind, type TSchema } from '@sinclair/typebox';
import { t, type Static } from 'elysia';
import { ANALYSIS_STATUSES, PackageInput, PackageItem } from '../../src/modules/compliance/schema';
import { ControlCreate } from '../../src/modules/controls/schema';
import { MAX_CONTENT_LENGTH, PolicyApprovalCreate, PolicyContent, PolicyCreate } from '../../src/modules/policies/schema';
import { ClassificationInput, LevelRef, RiskCreate, RiskScale, TreatmentCreate } from '../../src/modules/risks/schema';
import { IsoDate } from '../../src/platform/records/record-schema';
import { stringEnum } from '../../src/platform/http/schema-helpers';

/**
 * The bundle the loader reads (specification: "Bundle (input of the bundle loader)"). Each record's fields are taken
 * from the module's own schema (the REST create shape), minus owners (the loader never sets them) and custom fields,
 * plus the `ref` that finds the record again on a re-run. `bun run bundle:schema` writes it to docs/bundle.schema.json.
 */

export const BUNDLE_FORMAT = 'grc-bundle';
export const BUNDLE_VERSION = 1;
/** Rule 1 and Limits (bundle). */
export const MAX_REF_LENGTH = 60;
/** Rule 3: every free text field. */
export const MAX_FREE_TEXT = 100_000;
/** The largest bundle file the loader reads (docs/bundle-loader.md). */
export const MAX_BUNDLE_BYTES = 50 * 1024 * 1024;

const Ref = t.String({
  minLength: 1, maxLength: MAX_REF_LENGTH, pattern: '^\\S+$',
  description: 'Unique within its record type, at most 60 characters, no spaces. The title or name begins with it and one space; a re-run finds the record by it',
});
const refsTo = (what: string) => t.Array(Ref, { maxItems: 10_000, description: `Refs of ${what} in this bundle` });
const FreeText = (description?: string) => t.String({ maxLength: MAX_FREE_TEXT, ...(description ? { description } : {}) });

const { name: controlName, description: controlDescription, type, status: controlStatus, testFrequencyMonths } = ControlCreate.properties;
export const BundleControl = t.Object({
  ref: Ref,
  name: { ...controlName, description: 'Begins with the ref and one space: "C-12 Nightly backups"' },
  description: controlDescription,
  type,
  status: controlStatus,
  testFrequencyMonths,
}, { additionalProperties: false });
export type BundleControl = Static<typeof BundleControl>;

export const POLICY_BUNDLE_STATUSES = ['draft', 'published'] as const;
const { title: policyTitle, description: policyDescription, reviewFrequencyMonths: policyReviewFrequency } = PolicyCreate.properties;
export const BundlePolicy = t.Object({
  ref: Ref,
  title: { ...policyTitle, description: 'Begins with the ref and one space: "P-3 Acceptable use"' },
  description: policyDescription,
  reviewFrequencyMonths: policyReviewFrequency,
  content: t.Optional({ ...PolicyContent.properties.content, maxLength: MAX_CONTENT_LENGTH }),
  status: t.Optional(stringEnum(POLICY_BUNDLE_STATUSES, {
    description: 'published: the content is published as the next version when it differs from the current one (needs content). Blank gives draft',
  })),
  effectiveDate: t.Optional({ ...IsoDate, description: 'With signatories: each signatory is recorded as an approval given outside the app on this date (needs the setting Allow recording outside approvals)' }),
  signatories: t.Optional(t.Array(PolicyApprovalCreate.properties.approverName, { minItems: 1, maxItems: 100, description: 'Names of the people who approved the published version' })),
}, { additionalProperties: false });
export type BundlePolicy = Static<typeof BundlePolicy>;

const { type: treatmentType, title: treatmentTitle, description: treatmentDescription, dueOn } = TreatmentCreate.properties;
export const PlannedTreatment = t.Object({
  type: t.Optional({ ...treatmentType, description: 'Blank gives mitigate' }),
  title: { ...treatmentTitle, description: "Finds the treatment again among the risk's treatments" },
  description: treatmentDescription,
  dueOn,
  residualLikelihood: t.Optional({ ...LevelRef, description: 'Mitigate only: the rating expected once implemented; never above inherent' }),
  residualImpact: t.Optional({ ...LevelRef, description: 'Mitigate only: the rating expected once implemented; never above inherent' }),
  controls: t.Optional(refsTo('controls the treatment relies on (mitigate only)')),
}, { additionalProperties: false });
export type PlannedTreatment = Static<typeof PlannedTreatment>;

export const RISK_BUNDLE_STATUSES = ['open', 'closed', 'archived'] as const;
const { title: riskTitle, description: riskDescription, inherentLikelihood, inherentImpact, reviewFrequencyMonths, status: riskStatus } = RiskCreate.properties;
export const BundleRisk = t.Object({
  ref: Ref,
  title: { ...riskTitle, description: 'Begins with the ref and one space: "R-7 Ransomware on the file servers"' },
  description: riskDescription,
  classification: t.String({ ...ClassificationInput.properties.name, description: 'A name from the bundle\'s classifications' }),
  inherentLikelihood,
  inherentImpact,
  residualLikelihood: { ...LevelRef, description: 'Never above the inherent likelihood' },
  residualImpact: { ...LevelRef, description: 'Never above the inherent impact' },
  residualBasis: t.String({
    minLength: 1, maxLength: MAX_FREE_TEXT,
    description: 'Why the residual rating is what it is. Becomes an implemented mitigate treatment titled "Residual rating basis" carrying the residual rating',
  }),
  controls: t.Optional(refsTo('controls the residual rating rests on (linked to the residual basis treatment)')),
  plannedTreatment: t.Optional(PlannedTreatment),
  status: riskStatus,
  reviewFrequencyMonths,
}, { additionalProperties: false });
export type BundleRisk = Static<typeof BundleRisk>;

export const BundleClassification = ClassificationInput;
export type BundleClassification = Static<typeof BundleClassification>;

export const BundleRequirement = t.Object({
  code: { ...PackageItem.properties.code, description: "The code of a requirement or additional item of the bundle's package" },
  status: t.Optional(stringEnum(ANALYSIS_STATUSES, { description: "The requirement's analysis status" })),
  notes: t.Optional(FreeText('Assessment notes of the analysis')),
  controls: t.Optional(refsTo('controls mapped to the requirement')),
  policies: t.Optional(refsTo('policies mapped to the requirement')),
  risks: t.Optional(refsTo('risks mapped to the requirement')),
}, { additionalProperties: false });
export type BundleRequirement = Static<typeof BundleRequirement>;

export const Bundle = t.Object({
  $schema: t.Optional(t.String({ description: 'Address of this JSON Schema, for editors' })),
  format: t.Literal(BUNDLE_FORMAT),
  version: t.Literal(BUNDLE_VERSION),
  source: t.Optional(FreeText('Where the data comes from (free text)')),
  riskScale: t.Optional({ ...RiskScale, description: 'Replaces the instance\'s levels, score matrix and bands; a level\'s description and a band\'s color left out keep the instance\'s' }),
  package: t.Optional({ ...PackageInput, description: 'A compliance package in the import shape; found again by its name' }),
  classifications: t.Optional(t.Array(BundleClassification, { maxItems: 1000, description: 'Risk classifications; found again by name (ignoring case and spaces)' })),
  controls: t.Optional(t.Array(BundleControl, { maxItems: 100_000 })),
  policies: t.Optional(t.Array(BundlePolicy, { maxItems: 100_000 })),
  risks: t.Optional(t.Array(BundleRisk, { maxItems: 100_000 })),
  requirements: t.Optional(t.Array(BundleRequirement, {
    maxItems: 10_000, description: "Requirement statuses and mappings; only with a package, naming its item codes and refs in this bundle",
  })),
}, { additionalProperties: false, title: 'GRC bundle', description: 'Input of the bundle loader (npm run load), format grc-bundle version 1' });
export type Bundle = Static<typeof Bundle>;

/**
 * The module schemas use Elysia's integer, which also takes a numeric string (for query parameters). A bundle is
 * JSON: an integer is a JSON number, so the checker and the published JSON Schema use the plain integer branch.
 */
export function plainIntegers<T extends TSchema>(schema: T): T {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isRecord(node)) return node;
    const branches = node.anyOf;
    if (Array.isArray(branches) && branches.length === 2 && isRecord(branches[0]) && branches[0].format === 'integer' && branches[0].type === 'string') {
      const { anyOf: _union, [Kind]: _kind, ...outer } = node as Record<string | symbol, unknown>;
      return { ...(walk(branches[1]) as object), ...outer };
    }
    const copy: Record<string | symbol, unknown> = {};
    for (const key of Reflect.ownKeys(node)) copy[key] = walk((node as Record<string | symbol, unknown>)[key]);
    return copy;
  };
  return walk(schema) as T;
}

/** The schema as a JSON Schema document (docs/bundle.schema.json). */
export function bundleJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    ...(JSON.parse(JSON.stringify(plainIntegers(Bundle))) as Record<string, unknown>),
  };
}


const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
