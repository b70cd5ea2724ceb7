import { eq, sql } from 'drizzle-orm';
import { analysisControls, analysisPolicies, analysisProjects, analysisRisks } from '../../../db/schema';
import type { SectionProvider } from '../../platform/records/record-types';
import { linkedRecordsSection } from '../../platform/records/linked-records';

/** The mapping tables, by the kind of the record mapped to a requirement. */
const MAPPINGS = {
  control: { table: analysisControls, column: analysisControls.controlId },
  policy: { table: analysisPolicies, column: analysisPolicies.policyId },
  risk: { table: analysisRisks, column: analysisRisks.riskId },
  project: { table: analysisProjects, column: analysisProjects.projectId },
} as const;

/**
 * What links here, from the compliance side: the requirements a control, policy, risk or project is mapped to, on
 * that record's page (the requirement's page lists its mappings itself).
 */
export const complianceSections: SectionProvider = (type) => {
  const mapping = MAPPINGS[type.kind as keyof typeof MAPPINGS];
  if (!mapping) return null;
  return linkedRecordsSection(type, {
    key: 'requirements', listed: 'requirement', heading: 'Compliance requirements', empty: 'Not mapped to any requirement.',
    ids: (hostId) => sql`select ${mapping.table.analysisId} from ${mapping.table} where ${eq(mapping.column, hostId)}`,
  });
};
