import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { canTouch, type Actor } from '../../platform/permissions/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn, type ListColumn } from '../../platform/record-screens/record-pages';
import { listRecords } from '../../platform/records/records';
import { AUDIT_PLAN_STATUSES, AuditPlanCreate, AuditPlanUpdate, FINDING_STATUSES, FindingCreate, FindingUpdate } from './schema';
import { auditPlanKind, findingChoices, findingKind } from './service';
import type { FindingView } from './schema';
import { controlKind } from '../controls/service';
import { FindingsSection, readable, type AuditPlanView } from './views';

/** The Findings list's columns, also its CSV export's and the audit findings report's. */
export const findingColumns: ListColumn<FindingView>[] = [
  { header: 'Finding', value: (f) => f.title, link: true, sort: 'title' },
  { header: 'Status', value: (f) => readable(f.status), sort: 'status' },
  { header: 'Deadline', value: (f) => f.deadline, sort: 'deadline' },
  ownerColumn(),
];

/** The plan's findings, with a short form to add one for those who may create findings. */
async function findingsSection(ctx: AppContext, plan: AuditPlanView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const [findings, choices] = await Promise.all([
    listRecords(ctx.db, findingKind, viewer, { auditPlanId: plan.id, pageSize: 200, sort: 'title' }),
    findingChoices(ctx.db, viewer),
  ]);
  const controlName = new Map(choices.controls.map((c) => [c.value, c.label]));
  const canCreate = canTouch(viewer, 'audits:create', { ownerId: viewer.userId, ownerGroupId: null });
  return <FindingsSection plan={plan} findings={findings} controlName={controlName} choices={choices} canCreate={canCreate} csrfToken={csrfToken} />;
}

export const auditPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:audits' })
    .use(recordPages(ctx, auditPlanKind, {
      path: '/audits',
      title: 'Audits',
      singular: 'Audit plan',
      navKey: 'audits',
      Create: AuditPlanCreate,
      Update: AuditPlanUpdate,
      statuses: AUDIT_PLAN_STATUSES,
      // Audit findings are imported from the Audits page too (the only import type under /audits).
      importable: true,
      fields: [
        { name: 'title', label: 'Title', kind: 'text', required: true },
        { name: 'scope', label: 'Scope', kind: 'textarea' },
        { name: 'periodStart', label: 'Period from', kind: 'date' },
        { name: 'periodEnd', label: 'Period to', kind: 'date', hint: 'Not before the start' },
        { name: 'status', label: 'Status', kind: 'select', options: AUDIT_PLAN_STATUSES, hint: 'Blank gives planned' },
        ...OWNER_FIELDS,
      ],
      columns: [
        { header: 'Audit plan', value: (p) => p.title, link: true, sort: 'title' },
        { header: 'Period', value: (p) => (p.periodStart || p.periodEnd ? `${p.periodStart ?? '…'} – ${p.periodEnd ?? '…'}` : ''), sort: 'periodStart' },
        { header: 'Status', value: (p) => readable(p.status), sort: 'status' },
        ownerColumn(),
      ],
      sections: (view, viewer, csrfToken) => findingsSection(ctx, view, viewer, csrfToken),
    }))
    .use(recordPages(ctx, findingKind, {
      path: '/audits/findings',
      title: 'Audit findings',
      singular: 'Finding',
      navKey: 'audits',
      Create: FindingCreate,
      Update: FindingUpdate,
      statuses: FINDING_STATUSES,
      importable: true,
      fields: [
        {
          name: 'auditPlanId', label: 'Audit plan', kind: 'reference', required: true,
          options: async (viewer) => (await findingChoices(ctx.db, viewer)).plans, link: auditPlanKind,
        },
        { name: 'title', label: 'Title', kind: 'text', required: true },
        { name: 'description', label: 'Description', kind: 'textarea' },
        { name: 'status', label: 'Status', kind: 'select', options: FINDING_STATUSES, hint: 'A finding is created open; change it later' },
        { name: 'deadline', label: 'Deadline', kind: 'date' },
        { name: 'controlId', label: 'Control', kind: 'reference', options: async (viewer) => (await findingChoices(ctx.db, viewer)).controls, link: controlKind },
        ...OWNER_FIELDS,
      ],
      columns: findingColumns,
      // An audit plan's page links here for its findings filtered, sorted and exported (an id not offered still narrows: strict).
      filters: async (viewer) => [{ name: 'auditPlanId', label: 'Audit plan', options: (await findingChoices(ctx.db, viewer)).plans, strict: true }],
    }));
