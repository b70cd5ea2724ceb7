import { eq, sql, type SQL } from 'drizzle-orm';
import { dpias, privacyTransfers, transferImpactAssessments } from '../../../db/schema';
import { linkedRecordColumn, linkedRecordsSection } from '../../platform/records/linked-records';
import type { RecordSection, RecordTypeDeclaration } from '../../platform/records/record-types';
import { labelledInSql } from '../../platform/reports/declarations';
import { COUNTRY_CODES, countryName } from './countries';
import { requiredSql } from './dpia-service';
import { DPIA_PATH } from './pages';
import { DPIA_STATUSES, TIA_CONCLUSIONS, TIA_RISKS, TRANSFER_DEROGATIONS } from './schema';
import { TIA_PATH, TRANSFER_PATH } from './transfer-service';

/**
 * The lists of data privacy records kept on a processing activity's page (its DPIAs and transfers outside the EEA) and
 * on a third party's (its transfer impact assessments): what-links-here sections, so each is paged with its total (no
 * cap), sorted by its headers in place and exported; values in words, linked records by name or "(restricted)".
 */

/** A country code as its English name, written by PostgreSQL so the section sorts by it. */
const countrySql = (code: typeof privacyTransfers.destinationCountry): SQL<string> =>
  sql<string>`case ${code} ${sql.join(COUNTRY_CODES.map((c) => sql`when ${c} then ${countryName(c)}::text`), sql` `)} else ${code} end`;

/** A transfer's safeguard in words, as `safeguardText` writes it on the transfer's page. */
const safeguardSql = sql<string>`case ${privacyTransfers.safeguard}
  when 'sccs' then 'Standard contractual clauses' || coalesce(' (module ' || ${privacyTransfers.sccModule}::text || ')', '')
  when 'bcrs' then 'Binding corporate rules'
  when 'derogation' then 'Derogation (Art. 49): ' || coalesce(${labelledInSql(privacyTransfers.derogation, TRANSFER_DEROGATIONS)}, '—')
  else 'Adequacy decision' end`;

/** A processing activity's DPIAs and transfers, one section after the other, on the activity's own page. */
export function activityLinkedSections(activity: RecordTypeDeclaration): RecordSection {
  const dpiaSection = linkedRecordsSection(activity, {
    key: 'dpias', listed: 'dpia', heading: 'DPIAs', empty: 'No DPIAs of this processing activity.',
    ids: (hostId) => sql`select ${dpias.id} from ${dpias} where ${eq(dpias.processingActivityId, hostId)}`,
    detail: { header: 'Status', value: () => sql<string>`${labelledInSql(dpias.status, DPIA_STATUSES)}` },
    columns: [{ header: 'Required', value: () => sql<string>`case when ${requiredSql} then 'Required' else 'Not required' end` }],
    create: { label: 'New DPIA', href: (hostId) => `${DPIA_PATH}/new?processingActivityId=${hostId}`, needs: 'dataPrivacy:create' },
  });
  const transferSection = linkedRecordsSection(activity, {
    key: 'transfers', listed: 'transfer', heading: 'Transfers outside the EEA', empty: 'No transfers outside the EEA recorded for this processing activity.',
    ids: (hostId) => sql`select ${privacyTransfers.id} from ${privacyTransfers} where ${eq(privacyTransfers.processingActivityId, hostId)}`,
    detail: { header: 'Destination', value: () => countrySql(privacyTransfers.destinationCountry) },
    columns: [
      linkedRecordColumn('Recipient', 'thirdParty', privacyTransfers.recipientThirdPartyId, '—'),
      { header: 'Safeguard', value: () => safeguardSql },
      linkedRecordColumn('Transfer impact assessment', 'transferImpactAssessment', privacyTransfers.transferImpactAssessmentId, 'None'),
    ],
    create: { label: 'New transfer', href: (hostId) => `${TRANSFER_PATH}/new?processingActivityId=${hostId}`, needs: 'dataPrivacy:create' },
  });
  return async (ctx, id, viewer, csrfToken) => {
    const [dpiaList, transferList] = await Promise.all([dpiaSection(ctx, id, viewer, csrfToken), transferSection(ctx, id, viewer, csrfToken)]);
    return <>{dpiaList}{transferList}</>;
  };
}

/** A third party's transfer impact assessments, on its page (the module's `sections` provider). */
export const thirdPartyTiaSection = (thirdParty: RecordTypeDeclaration): RecordSection => linkedRecordsSection(thirdParty, {
  key: 'transfer-impact-assessments', listed: 'transferImpactAssessment', heading: 'Transfer impact assessments',
  empty: 'No transfer impact assessments kept on this third party.',
  ids: (hostId) => sql`select ${transferImpactAssessments.id} from ${transferImpactAssessments} where ${eq(transferImpactAssessments.thirdPartyId, hostId)}`,
  detail: { header: 'Assessed on', value: () => sql<string>`${transferImpactAssessments.assessedOn}::text` },
  columns: [
    { header: 'Risk found', value: () => sql<string>`${labelledInSql(transferImpactAssessments.riskFound, TIA_RISKS)}` },
    { header: 'Conclusion', value: () => sql<string>`${labelledInSql(transferImpactAssessments.conclusion, TIA_CONCLUSIONS)}` },
    { header: 'Next review', value: () => sql<string | null>`${transferImpactAssessments.nextReviewOn}::text` },
  ],
  create: { label: 'New transfer impact assessment', href: (hostId) => `${TIA_PATH}/new?thirdPartyId=${hostId}`, needs: 'dataPrivacy:create' },
});
