import { eq } from 'drizzle-orm';
import { evidence, evidenceFiles } from '../../../db/schema';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { evidenceApi } from './api';
import { evidenceInFull, evidenceProving, evidenceTools } from './assistant';
import { uploadLinkLimit, uploadLinkRoutes, uploadLinkTool } from './upload-links';
import { fileTooLarge, maxFileBytes } from './files';
import { evidencePages } from './pages';
import { evidenceSection } from './linked-sections';
import { evidenceReminders } from './service';
import { evidenceDueDates, evidenceEvents } from './notifications';
import { dateRangeFilters, inDateRange, registerReport, yesNoFilter } from '../../platform/reports/declarations';
import { EVIDENCE_KINDS, EVIDENCE_STATUSES } from './schema';
import { valueLabel } from '../../platform/core/value-labels';
import { evidenceColumns } from './pages';
import { evidenceKind } from './service';

const UPLOAD = /^(\/api\/v1)?\/evidence\/[^/]+\/files$/;

/** Evidence and vendor reports: files sealed by SHA-256, links to what they prove, lock, Verify files, auditor packages. */
export const manifest: ModuleManifest<'evidence'> = defineModule({
  name: 'evidence',
  apiTags: {
    Evidence: 'Evidence and vendor reports: files sealed by SHA-256, links to what they prove, lock, Verify files and auditor packages (docs/evidence.md).',
  },
  permissions: permissionArea('evidence'),
  plugins: (ctx) => [evidenceApi(ctx), evidencePages(ctx), uploadLinkRoutes(ctx)],
  nav: [{ group: 'Compliance', key: 'evidence', href: '/evidence', label: 'Evidence', needs: 'evidence:read' }],
  customFields: true,
  countedTables: ['evidence'],
  recordTypes: [{
    kind: 'evidence', label: 'Evidence', plural: 'Evidence', module: 'evidence',
    table: evidence, id: evidence.id, title: evidence.title, ownerId: evidence.ownerId, ownerGroupId: evidence.ownerGroupId,
    href: (id) => `/evidence/${id}`,
    // Its History names an uploaded or removed file by its name, linked to its download.
    links: { fileId: 'evidenceFile' },
    search: { body: evidence.description },
    read: evidenceInFull,
    attaches: { key: 'evidence', to: evidenceProving },
    openItems: { key: 'evidenceExpiring', list: (ctx, actor) => evidenceReminders(ctx.db, { owner: actor }) },
  }, {
    // A file of an evidence record (its History is the record's), read as the record is; its screen is its download.
    kind: 'evidenceFile', label: 'Evidence file', plural: 'Evidence files', module: 'evidence',
    table: evidenceFiles, id: evidenceFiles.id, title: evidenceFiles.name, ownerId: evidence.ownerId, ownerGroupId: evidence.ownerGroupId,
    join: { table: evidence, on: eq(evidence.id, evidenceFiles.evidenceId) },
    parent: { kind: 'evidence', id: evidenceFiles.evidenceId },
    href: (id, parentId) => `/evidence/${parentId}/files/${id}`,
  }],
  // What proves a record, on the page of every record type evidence can be linked to.
  sections: evidenceSection,
  assistantTools: () => [...evidenceTools(), uploadLinkTool()],
  uploads: (config) => [{ path: UPLOAD, bytes: maxFileBytes({ config }), message: fileTooLarge({ config }) }, uploadLinkLimit],
  events: evidenceEvents,
  dueDates: evidenceDueDates,
  reports: [registerReport(evidenceKind, {
    key: 'evidenceStatus', title: 'Evidence status', listHref: '/evidence', columns: evidenceColumns, params: { sort: 'validUntil' },
    description: 'Every piece of evidence you may read: its kind, status (current, expiring, expired), validity, files and whether it is locked.',
    // The Evidence list's filters (status, kind, locked, owner group), and the validity's end as a range.
    statuses: EVIDENCE_STATUSES,
    filters: async () => [
      { name: 'kind', label: 'Kind', options: EVIDENCE_KINDS.map((k) => ({ value: k, label: valueLabel(k) })) },
      yesNoFilter('locked', 'Locked'),
      ...dateRangeFilters('validUntil', 'Valid until'),
    ],
    tests: { validUntil: (row, chosen) => inDateRange(chosen, 'validUntil', row.validUntil) },
  })],
});

