import { eq, sql } from 'drizzle-orm';
import { assets } from '../../../db/schema';
import type { SectionProvider } from '../../platform/records/record-types';
import { linkedRecordsSection } from '../../platform/records/linked-records';

/** What links here, from the assets side: a business unit's page lists its assets (paged, sorted, exported as every such section). */
export const assetSections: SectionProvider = (type) => (type.kind !== 'businessUnit' ? null : linkedRecordsSection(type, {
  key: 'assets', listed: 'asset', empty: 'No assets in this unit.',
  ids: (hostId) => sql`select ${assets.id} from ${assets} where ${eq(assets.businessUnitId, hostId)}`,
}));
