import { eq, sql } from 'drizzle-orm';
import { thirdPartyRisks } from '../../../db/schema';
import type { SectionProvider } from '../../platform/records/record-types';
import { linkedRecordsSection } from '../../platform/records/linked-records';

/** What links here, from the third-party side: the third parties a risk is linked to, on the risk's page. */
export const thirdPartySections: SectionProvider = (type) => (type.kind !== 'risk' ? null : linkedRecordsSection(type, {
  key: 'third-parties', listed: 'thirdParty', empty: 'No third party is linked to this risk.',
  ids: (hostId) => sql`select ${thirdPartyRisks.thirdPartyId} from ${thirdPartyRisks} where ${eq(thirdPartyRisks.riskId, hostId)}`,
}));
