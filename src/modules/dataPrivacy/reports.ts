import { chosenOf, erased, ownerGroupFilter, type ReportDeclaration } from '../../platform/reports/declarations';
import { valueLabel } from '../../platform/core/value-labels';
import { REGISTER_COLUMNS, registerEntryPages, type RegisterEntry } from './register';
import { LEGAL_BASES, PROCESSING_ROLES, PROCESSING_STATUSES } from './schema';

const choices = (keys: readonly string[]) => keys.map((k) => ({ value: k, label: valueLabel(k) }));

/**
 * The Article 30 register in the Report Center: the register's own reading (registerEntryPages, the statement of its
 * page and streamed CSV), so the three say the same; systems, processors and controls the reader may not read are "(restricted)".
 */
const articleThirty: ReportDeclaration<RegisterEntry> = {
  key: 'article30Register', title: 'Article 30 register', needs: 'dataPrivacy:read', listHref: '/data-privacy/register',
  description: 'The records of processing (GDPR Art. 30) you may read, controllers first: purposes, legal basis, categories, recipients, retention, systems, processors and the controls that are its measures (one you may not read is "(restricted)").',
  columns: REGISTER_COLUMNS.map((c) => ({ header: c.header, value: (entry: RegisterEntry) => entry[c.key] })),
  filters: async (ctx) => [
    { name: 'role', label: 'Role', options: choices(PROCESSING_ROLES) },
    // Retired activities are never in the register.
    { name: 'status', label: 'Status', options: choices(PROCESSING_STATUSES.filter((s) => s !== 'retired')) },
    { name: 'legalBasis', label: 'Legal basis', options: choices(LEGAL_BASES) },
    await ownerGroupFilter(ctx.db),
  ],
  pages: (ctx, viewer, chosen) => registerEntryPages(ctx.db, viewer, {
    role: chosenOf(PROCESSING_ROLES, chosen.role),
    status: chosenOf(PROCESSING_STATUSES, chosen.status),
    legalBasis: chosenOf(LEGAL_BASES, chosen.legalBasis),
    ownerGroupId: chosen.ownerGroupId,
  }),
};

export const dataPrivacyReports = [erased(articleThirty)];
