import { benchAudit } from './audit';
import { benchCompliance, benchNistTree } from './compliance';
import { benchListEndpoints } from './list-endpoints';
import { benchCsvImport } from './csv-import';
import { benchScim } from './scim';
import { benchEvidence } from './evidence';
import { benchAssistant } from './assistant';
import { benchBundleLoader } from './bundle-loader';
import { benchReminderSweep } from './reminder-sweep';
import { benchDashboard } from './dashboard';
import { benchDemoData } from './demo-data';
import { benchAwareness } from './awareness';
import { benchAssessments } from './assessments';
import { benchPosture } from './posture';
import { benchPrivacy } from './privacy';
import { benchReportCsv } from './report-csv';

/** `bun run bench`: prints each figure next to its floor, measured in the same run, on DATABASE_URL or PGlite. */
const database = process.env.DATABASE_URL ? `PostgreSQL (${new URL(process.env.DATABASE_URL).host})` : 'PGlite (in memory)';
console.log(`Benchmarks on ${database}, ${navigator.hardwareConcurrency} cores\n`);
const suites: [string, () => Promise<Record<string, string>>][] = [
  ['List endpoints over HTTP', benchListEndpoints],
  ['Audit Log', benchAudit],
  ['CSV import', benchCsvImport],
  ['Compliance package import', benchCompliance],
  ['NIST tree page', benchNistTree],
  ['SCIM provisioning', benchScim],
  ['Bundle loader', benchBundleLoader],
  ['Evidence files', benchEvidence],
  ['AI assistant endpoint', benchAssistant],
  ['Reminder sweep', benchReminderSweep],
  ['Dashboard', benchDashboard],
  ['Posture at a past date', benchPosture],
  ['Demo data', benchDemoData],
  ['Awareness completion', benchAwareness],
  ['Assessments', benchAssessments],
  ['Article 30 register', benchPrivacy],
  ['Risk register report CSV', benchReportCsv],
];
const only = process.argv[2];
for (const [name, run] of suites) {
  if (only && !name.toLowerCase().includes(only.toLowerCase())) continue;
  console.log(`## ${name}`);
  for (const [label, value] of Object.entries(await run())) console.log(`  ${label.padEnd(48)} ${value}`);
  console.log('');
}
process.exit(0);
