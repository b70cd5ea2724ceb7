import { eq, sql } from 'drizzle-orm';
import { incidents } from '../../../db/schema';
import type { SectionProvider } from '../../platform/records/record-types';
import { linkedRecordsSection } from '../../platform/records/linked-records';

/** What links here, from the incidents side: the incidents naming an asset, on the asset's page. */
export const incidentSections: SectionProvider = (type) => (type.kind !== 'asset' ? null : linkedRecordsSection(type, {
  key: 'incidents', listed: 'incident', empty: 'No incident names this asset.',
  ids: (hostId) => sql`select ${incidents.id} from ${incidents} where ${eq(incidents.assetId, hostId)}`,
}));
