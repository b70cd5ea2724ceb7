import type { AppContext } from '../../platform/http/context';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { readableChoices, recordType } from '../../platform/records/record-types';
import { valueLabel } from '../../platform/core/value-labels';
import type { Actor } from '../../platform/permissions/permissions';
import { thirdParties } from '../../../db/schema';
import { countryChoices, countryName, EEA_COUNTRIES } from './countries';
import {
  SCC_MODULE_LABELS, TIA_CONCLUSIONS, TIA_RISKS, TiaRecordCreate, TiaRecordUpdate, TRANSFER_DEROGATIONS, TRANSFER_SAFEGUARDS, TransferCreate, TransferUpdate,
} from './schema';
import { safeguardText, TIA_PATH, tiaKind, TRANSFER_PATH, transferKind } from './transfer-service';
import { processingActivityKind } from './service';

/** The third party a transfer or TIA names, for the screens' pickers and record pages (its table, not its module). */
const thirdPartyLink = { module: 'thirdParties', label: 'Third party', table: thirdParties, titleColumn: thirdParties.name } as const;

const SAFEGUARD_LABELS: Record<(typeof TRANSFER_SAFEGUARDS)[number], string> = {
  adequacy_decision: 'Adequacy decision (Art. 45)', sccs: 'Standard contractual clauses (Art. 46(2)(c))', bcrs: 'Binding corporate rules (Art. 47)',
  derogation: 'Derogation (Art. 49)',
};
const DEROGATION_LABELS: Record<(typeof TRANSFER_DEROGATIONS)[number], string> = {
  explicit_consent: '(a) Explicit consent', contract_with_data_subject: '(b) Contract with the data subject',
  contract_in_data_subject_interest: '(c) Contract in the data subject\'s interest', important_public_interest: '(d) Important reasons of public interest',
  legal_claims: '(e) Legal claims', vital_interests: '(f) Vital interests', public_register: '(g) Public register',
  compelling_legitimate_interests: 'Compelling legitimate interests (second subparagraph)',
};
const labelled = (labels: Record<string | number, string>) => async () => Object.entries(labels).map(([value, label]) => ({ value, label }));
/** Destinations outside the EEA, by name. */
const destinations = async () => countryChoices((code) => !EEA_COUNTRIES.has(code));

const readable = (app: AppContext, kind: string) => (viewer: Actor) => readableChoices(app.db, viewer, recordType(kind));

/** Transfers outside the EEA on the register kit: list, record page, new (from a processing activity's page) and edit. */
export const transferPages = (app: AppContext) => {
  return recordPages(app, transferKind, {
  path: TRANSFER_PATH,
  title: 'Transfers outside the EEA',
  singular: 'Transfer',
  navKey: 'transfers',
  Create: TransferCreate,
  Update: TransferUpdate,
  searchLabel: 'Search names',
  fields: [
    { name: 'name', label: 'Name', kind: 'text', required: true, maxlength: 300, hint: 'What is transferred, to whom' },
    { name: 'processingActivityId', label: 'Processing activity', kind: 'reference', required: true,
      link: processingActivityKind,
      options: readable(app, 'processingActivity') },
    { name: 'destinationCountry', label: 'Destination country', kind: 'select', required: true, options: destinations, hint: 'Countries outside the EEA' },
    { name: 'recipientThirdPartyId', label: 'Recipient', kind: 'reference', required: true, link: thirdPartyLink, options: readable(app, 'thirdParty'),
      hint: 'The third party receiving the data' },
    { name: 'safeguard', label: 'Safeguard', kind: 'select', required: true, options: labelled(SAFEGUARD_LABELS) },
    { name: 'sccModule', label: 'SCC module', kind: 'select', numeric: true, options: labelled(SCC_MODULE_LABELS), hint: 'With standard contractual clauses only' },
    { name: 'derogation', label: 'Art. 49 ground', kind: 'select', options: labelled(DEROGATION_LABELS), hint: 'With a derogation only' },
    { name: 'transferImpactAssessmentId', label: 'Transfer impact assessment', kind: 'reference', options: readable(app, 'transferImpactAssessment'),
      hint: 'One kept on the recipient' },
    { name: 'notes', label: 'Notes', kind: 'textarea' },
    ...OWNER_FIELDS,
  ],
  columns: [
    { header: 'Name', value: (tr) => tr.name, link: true, sort: 'name' },
    { header: 'Destination', value: (tr) => countryName(tr.destinationCountry), sort: 'destinationCountry' },
    { header: 'Safeguard', value: (tr) => safeguardText(tr), sort: 'safeguard' },
    ownerColumn(),
  ],
  messages: { created: 'Transfer recorded.' },
  historyNames: async () => (field, value) => {
    if (field === 'destinationCountry' && typeof value === 'string') return countryName(value);
    if (field === 'safeguard' && typeof value === 'string') return SAFEGUARD_LABELS[value as keyof typeof SAFEGUARD_LABELS];
    if (field === 'derogation' && typeof value === 'string') return DEROGATION_LABELS[value as keyof typeof DEROGATION_LABELS];
    if (field === 'sccModule' && typeof value === 'number') return SCC_MODULE_LABELS[value];
    return undefined;
  },
  });
};

/** Transfer impact assessments on the register kit: record page, new (from a third party's page) and edit. */
export const tiaPages = (app: AppContext) => {
  return recordPages(app, tiaKind, {
  path: TIA_PATH,
  title: 'Transfer impact assessments',
  singular: 'Transfer impact assessment',
  navKey: 'transfer-impact-assessments',
  Create: TiaRecordCreate,
  Update: TiaRecordUpdate,
  searchLabel: 'Search names',
  fields: [
    { name: 'name', label: 'Name', kind: 'text', required: true, maxlength: 300 },
    { name: 'thirdPartyId', label: 'Third party', kind: 'reference', required: true, link: thirdPartyLink, options: readable(app, 'thirdParty'),
      hint: 'The importer the assessment is kept on; it stays on it' },
    { name: 'lawsAssessed', label: 'Laws assessed', kind: 'textarea', required: true, hint: 'The laws and practices of the destination, public authorities\' access to the data included' },
    { name: 'riskFound', label: 'Risk found', kind: 'select', required: true, options: TIA_RISKS },
    { name: 'supplementaryMeasures', label: 'Supplementary measures', kind: 'textarea' },
    { name: 'conclusion', label: 'Conclusion', kind: 'select', required: true, options: TIA_CONCLUSIONS },
    { name: 'assessedOn', label: 'Assessed on', kind: 'date', required: true },
    { name: 'nextReviewOn', label: 'Next review', kind: 'date', hint: 'After the assessment date; the owner is reminded' },
    ...OWNER_FIELDS,
  ],
  columns: [
    { header: 'Name', value: (tia) => tia.name, link: true, sort: 'name' },
    { header: 'Risk found', value: (tia) => valueLabel(tia.riskFound), sort: 'riskFound' },
    { header: 'Conclusion', value: (tia) => valueLabel(tia.conclusion), sort: 'conclusion' },
    { header: 'Assessed on', value: (tia) => tia.assessedOn, sort: 'assessedOn' },
    { header: 'Next review', value: (tia) => tia.nextReviewOn ?? '', sort: 'nextReviewOn' },
    ownerColumn(),
  ],
  messages: { created: 'Transfer impact assessment recorded.' },
  });
};
