import { riskClassifications, riskImpactLevels, riskLikelihoodLevels, risks } from '../../../db/schema';
import type { NamedRecords } from '../../platform/csv/import-type';
import {
  defineImportType, matchAllowed, namedRecords, ownerColumn, ownerGroupColumn, readableNamed, readInteger, readNamed, writeNamed,
} from '../../platform/csv/import-type';
import type { DbOrTx } from '../../../db/client';
import type { Actor } from '../../platform/permissions';
import type { OwnedTable, RecordKind } from '../../platform/records';
import { assetKind } from '../assets/service';
import { businessUnitKind } from '../businessUnits/service';
import { RISK_STATUSES, RiskCreate, RiskUpdate } from './schema';
import { resolveLevel, riskRuleProblems } from './service';

interface Level {
  value: number;
  name: string;
}

interface RiskLookups {
  likelihood: Level[];
  impact: Level[];
  classifications: NamedRecords;
  assets: NamedRecords;
  units: NamedRecords;
}

const readLevel = (levels: Level[], text: string) => {
  const value = resolveLevel(levels, text);
  return value === undefined ? { problem: `"${text}" is not a level of the risk scale (${levels.map((l) => `${l.value} ${l.name}`).join(', ')})` } : { value };
};

/**
 * Risks have a bespoke service (src/modules/risks/service.ts). For bulk writes its rules (riskRuleProblems, the same
 * function validateRisk calls) run over lookups loaded once per run, as a RecordKind, so the register kit's batch
 * writes (with Audit Log and History) serve risks too.
 */
function riskKind(l: RiskLookups): RecordKind<typeof risks, RiskCreate> {
  const scale = { likelihood: l.likelihood, impact: l.impact };
  return {
    module: 'risks',
    recordType: 'risk',
    label: 'Risk',
    table: risks,
    titleColumn: risks.title,
    statusColumn: risks.status,
    sortable: {},
    defaults: { description: '', reviewFrequencyMonths: 12, status: 'open', residualLikelihood: null, residualImpact: null, assetId: null, businessUnitId: null },
    customFields: true,
    async check(_db, c, before) {
      // Lookups hold only records the importer may read; a link left as it was is not judged again (requireReadableLink).
      return riskRuleProblems(c, scale, {
        classification: l.classifications.nameOf.has(c.classificationId),
        asset: !c.assetId || c.assetId === before?.assetId || l.assets.nameOf.has(c.assetId),
        businessUnit: !c.businessUnitId || c.businessUnitId === before?.businessUnitId || l.units.nameOf.has(c.businessUnitId),
      }).problems;
    },
    // Levels given by name (a REST batch item) are stored as their values; a CSV row's are values already.
    toColumns: (c) => ({ ...c, title: c.title.trim(), ...riskRuleProblems(c, scale, { classification: true, asset: true, businessUnit: true }).levels }),
  };
}

/** Lookups of the risk rules for a batch, loaded once: the scale, classifications, and the assets and units the actor may read. */
async function prepareRiskLookups(db: DbOrTx, actor: Actor): Promise<RiskLookups> {
  // Links name only records the importer may read (spec Bearer rule 4), as a single write's requireReadableLink.
  const [likelihood, impact, classes, assetRecords, unitRecords] = await Promise.all([
    db.select({ value: riskLikelihoodLevels.value, name: riskLikelihoodLevels.name }).from(riskLikelihoodLevels),
    db.select({ value: riskImpactLevels.value, name: riskImpactLevels.name }).from(riskImpactLevels),
    db.select({ id: riskClassifications.id, name: riskClassifications.name }).from(riskClassifications),
    readableNamed(db, actor, assetKind),
    readableNamed(db, actor, businessUnitKind),
  ]);
  return { likelihood, impact, classifications: namedRecords(classes), assets: assetRecords, units: unitRecords };
}

/** The risk rules as a RecordKind for the kit's batch writes (POST and PATCH /api/v1/risks/batch), over lookups loaded once. */
export async function riskBatchKind(db: DbOrTx, actor: Actor): Promise<RecordKind<OwnedTable, Record<string, unknown>>> {
  return riskKind(await prepareRiskLookups(db, actor)) as unknown as RecordKind<OwnedTable, Record<string, unknown>>;
}

/** Risks CSV: classification by name, likelihood and impact by a level's value or name, asset and business unit by name. */
export const riskImport = defineImportType<RiskLookups>({
  area: 'risks',
  module: 'risks',
  title: 'Risks',
  Create: RiskCreate,
  Update: RiskUpdate,
  customFields: true,
  columns: [
    { name: 'title', field: 'title', required: true, help: 'text, up to 300 characters' },
    { name: 'description', field: 'description', help: 'text' },
    {
      name: 'classification', field: 'classificationId', required: true, help: 'name of a risk classification (Risk Settings)', blankOnUpdate: 'keep',
      read: (text, l) => readNamed(l.classifications, 'classification', text), write: (value, l) => writeNamed(l.classifications, value),
    },
    {
      name: 'inherent_likelihood', field: 'inherentLikelihood', required: true, help: "a likelihood level's value or name (Risk Settings)", blankOnUpdate: 'keep',
      read: (text, l) => readLevel(l.likelihood, text),
    },
    {
      name: 'inherent_impact', field: 'inherentImpact', required: true, help: "an impact level's value or name (Risk Settings)", blankOnUpdate: 'keep',
      read: (text, l) => readLevel(l.impact, text),
    },
    {
      name: 'asset', field: 'assetId', help: 'name (or id) of an asset', blankOnUpdate: 'clear',
      read: (text, l) => readNamed(l.assets, 'asset', text), write: (value, l) => writeNamed(l.assets, value),
    },
    {
      name: 'business_unit', field: 'businessUnitId', help: 'name (or id) of a business unit', blankOnUpdate: 'clear',
      read: (text, l) => readNamed(l.units, 'business unit', text), write: (value, l) => writeNamed(l.units, value),
    },
    ownerColumn(),
    ownerGroupColumn(),
    {
      name: 'review_frequency_months', field: 'reviewFrequencyMonths', help: 'whole number 1 to 120 (12 when blank on a new record)', blankOnUpdate: 'keep',
      read: (text) => readInteger(text, 1, 120),
    },
    { name: 'status', field: 'status', help: `${RISK_STATUSES.join(', ')} (blank gives open)`, blankOnUpdate: 'keep', read: (text) => matchAllowed(RISK_STATUSES, text) },
  ],
  prepare: prepareRiskLookups,
  kind: (l) => riskKind(l) as unknown as RecordKind<OwnedTable, Record<string, unknown>>,
});
