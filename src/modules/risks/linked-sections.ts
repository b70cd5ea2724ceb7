import { and, eq, sql } from 'drizzle-orm';
import { riskTreatments, risks, treatmentControls } from '../../../db/schema';
import type { RecordTypeDeclaration, SectionProvider } from '../../platform/records/record-types';
import { linkedRecordsSection } from '../../platform/records/linked-records';

/** The titles of the treatments of risk `riskId` that rely on control `controlId`, joined by commas. */
const treatmentTitles = (riskId: unknown, controlId: unknown) => sql<string | null>`(
  select string_agg(${riskTreatments.title}, ', ' order by ${riskTreatments.title}) from ${riskTreatments}
  join ${treatmentControls} on ${eq(treatmentControls.treatmentId, riskTreatments.id)}
  where ${and(eq(riskTreatments.riskId, riskId as string), eq(treatmentControls.controlId, controlId as string))})`;

/**
 * What links here, from the risks side: the risks of an asset (a risk names its asset), the risks whose treatments
 * rely on a control (with those treatments), and on a risk's own page the controls its treatments rely on.
 */
export const riskSections: SectionProvider = (type) => {
  switch (type.kind) {
    case 'asset':
      return linkedRecordsSection(type, {
        key: 'risks', listed: 'risk', empty: 'No risk names this asset.',
        ids: (hostId) => sql`select ${risks.id} from ${risks} where ${eq(risks.assetId, hostId)}`,
      });
    case 'control':
      return linkedRecordsSection(type, {
        key: 'risk-treatments', listed: 'risk', heading: 'Risk treatments', empty: 'No risk treatment relies on this control.',
        ids: (hostId) => sql`select ${riskTreatments.riskId} from ${riskTreatments}
          join ${treatmentControls} on ${eq(treatmentControls.treatmentId, riskTreatments.id)} where ${eq(treatmentControls.controlId, hostId)}`,
        detail: { header: 'Treatments', value: (hostId, listed: RecordTypeDeclaration) => treatmentTitles(listed.id, hostId) },
      });
    case 'risk':
      return linkedRecordsSection(type, {
        key: 'controls', listed: 'control', heading: 'Controls', empty: 'No treatment of this risk relies on a control.',
        ids: (hostId) => sql`select ${treatmentControls.controlId} from ${treatmentControls}
          join ${riskTreatments} on ${eq(treatmentControls.treatmentId, riskTreatments.id)} where ${eq(riskTreatments.riskId, hostId)}`,
        detail: { header: 'Treatments', value: (hostId, listed: RecordTypeDeclaration) => treatmentTitles(hostId, listed.id) },
      });
    default:
      return null;
  }
};
