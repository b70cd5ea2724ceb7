import { defineImportType, ownerColumn, ownerGroupColumn, readInteger } from '../../platform/csv/import-type';
import { DEFAULT_REVIEW_FREQUENCY_MONTHS, PolicyCreate, PolicyUpdate } from './schema';
import { policyKind } from './service';

/** Policies CSV: the register fields of a policy (content, publishing and approvals are not imported); written by the register kit. */
export const policyImport = defineImportType({
  area: 'policies',
  module: 'policies',
  title: 'Policies',
  Create: PolicyCreate,
  Update: PolicyUpdate,
  customFields: true,
  columns: [
    { name: 'title', field: 'title', required: true, help: 'text, up to 300 characters' },
    { name: 'description', field: 'description', help: 'text' },
    ownerColumn(),
    ownerGroupColumn(),
    {
      name: 'review_frequency_months', field: 'reviewFrequencyMonths', blankOnUpdate: 'keep',
      help: `whole number 1 to 120 (${DEFAULT_REVIEW_FREQUENCY_MONTHS} when blank on a new record)`,
      read: (text) => readInteger(text, 1, 120),
    },
  ],
  prepare: async () => ({}),
  kind: () => policyKind,
});
