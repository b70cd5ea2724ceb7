import { evidence } from '../../../db/schema';
import { registerSearch } from '../../platform/search';
import { defineModule } from '../../platform/module';
import { evidenceApi } from './api';
import { evidenceTools } from './assistant';
import { uploadLinkLimit, uploadLinkRoutes, uploadLinkTool } from './upload-links';
import { fileTooLarge, maxFileBytes } from './files';
import { evidencePages, evidenceSection } from './pages';
import { evidenceDueDates, evidenceEvents } from './notifications';

const UPLOAD = /^(\/api\/v1)?\/evidence\/[^/]+\/files$/;

/** Evidence and vendor reports: files sealed by SHA-256, links to what they prove, lock, Verify files, auditor packages. */
export const manifest = defineModule({
  name: 'evidence',
  searchSources: [registerSearch({ kind: 'evidence', label: 'Evidence', module: 'evidence', table: evidence, title: evidence.title, body: evidence.description, href: (id) => `/evidence/${id}` })],
  permissions: 'evidence',
  plugins: (ctx) => [evidenceApi(ctx), evidencePages(ctx), uploadLinkRoutes(ctx)],
  nav: [{ group: 'Compliance', key: 'evidence', href: '/evidence', label: 'Evidence', needs: 'evidence:read' }],
  customFields: true,
  countedTables: ['evidence'],
  assistantTools: [...evidenceTools, uploadLinkTool],
  uploads: (config) => [{ path: UPLOAD, bytes: maxFileBytes({ config }), message: fileTooLarge({ config }) }, uploadLinkLimit],
  recordSections: {
    control: evidenceSection(['control', 'controlTest']),
    complianceAnalysis: evidenceSection(['requirement']),
    risk: evidenceSection(['risk']),
    policy: evidenceSection(['policy']),
    thirdParty: evidenceSection(['thirdParty']),
    audit_plan: evidenceSection(['auditPlan']),
    audit_finding: evidenceSection(['auditFinding']),
    incident: evidenceSection(['incident']),
  },
  events: evidenceEvents,
  dueDates: evidenceDueDates,
});
