import {
  defineImportType, keyedColumn, ownerColumn, ownerGroupColumn, readInteger, readNamed, writeNamed,
} from '../../platform/csv/import-type';
import { RISK_STATUSES, RiskCreate, RiskUpdate } from './schema';
import { loadRiskBatchLookups, resolveLevel, riskKind, type RiskBatchLookups, type Scale } from './service';

type Level = Scale['likelihood'][number];

const readLevel = (levels: Level[], text: string) => {
  const value = resolveLevel(levels, text);
  return value === undefined ? { problem: `"${text}" is not a level of the risk scale (${levels.map((l) => `${l.value} ${l.name}`).join(', ')})` } : { value };
};

/** Risks CSV: classification by name, likelihood and impact by a level's value or name, asset and business unit by name. */
export const riskImport = defineImportType<RiskBatchLookups>({
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
    keyedColumn(RISK_STATUSES, { name: 'status', field: 'status', note: '(blank gives Open)', blankOnUpdate: 'keep' }),
  ],
  // The same lookups riskKind's batch rules read: names in the file resolve against what the importer may read.
  prepare: loadRiskBatchLookups,
  kind: () => riskKind,
});
