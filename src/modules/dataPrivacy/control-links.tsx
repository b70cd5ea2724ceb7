import { sql } from 'drizzle-orm';
import { processingActivities } from '../../../db/schema';
import { linkedRecordsSection } from '../../platform/records/linked-records';
import type { RecordSection, RecordTypeDeclaration } from '../../platform/records/record-types';
import { labelledInSql } from '../../platform/reports/declarations';
import { PROCESSING_ROLES, PROCESSING_STATUSES } from './schema';

/**
 * "What links here" on a control's page: the processing activities naming the control among their technical and
 * organisational measures (GDPR Art. 32), each with its role and status in words; to readers of data privacy at their
 * level (the others counted, never named), paged, sorted and exported as every such section.
 */
export const controlProcessingActivities = (type: RecordTypeDeclaration): RecordSection => linkedRecordsSection(type, {
  key: 'processing-activities', listed: 'processingActivity', heading: 'Processing activities',
  empty: 'No processing activity names this control among its technical and organisational measures.',
  ids: (hostId) => sql`select ${processingActivities.id} from ${processingActivities} where ${hostId}::uuid = any(${processingActivities.controlIds})`,
  detail: {
    header: 'Role and status',
    value: () => sql<string>`${labelledInSql(processingActivities.role, PROCESSING_ROLES)} || ', ' || lower(${labelledInSql(processingActivities.status, PROCESSING_STATUSES)})`,
  },
});
