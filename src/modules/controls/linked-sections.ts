import { eq, sql } from 'drizzle-orm';
import { controlTests, users } from '../../../db/schema';
import { labelledInSql } from '../../platform/reports/declarations';
import { linkedRecordsSection } from '../../platform/records/linked-records';
import type { SectionProvider } from '../../platform/records/record-types';
import { TEST_RESULTS } from './schema';

/**
 * A control's test results on its page, below its testing schedule: a what-links-here section of its tests, newest
 * first, by date, with the result in words, the tester by name and the notes; sorted by date or result in place, paged
 * with the total and exported as every such section. A test has no page of its own, so its date is not a link.
 */
export const controlSections: SectionProvider = (type) => (type.kind !== 'control' ? null : linkedRecordsSection(type, {
  key: 'tests', listed: 'controlTest', heading: 'Test results', empty: 'No tests recorded.',
  ids: (hostId) => sql`select ${controlTests.id} from ${controlTests} where ${eq(controlTests.controlId, hostId)}`,
  name: { header: 'Date', value: () => sql<string>`${controlTests.testedOn}::text`, link: false },
  defaultSort: '-title',
  detail: { header: 'Result', value: () => sql<string>`${labelledInSql(controlTests.result, TEST_RESULTS)}` },
  columns: [
    { header: 'Tester', value: () => sql<string | null>`(select ${users.name} from ${users} where ${users.id} = ${controlTests.testerId})` },
    { header: 'Notes', value: () => sql<string>`${controlTests.notes}` },
  ],
}));
