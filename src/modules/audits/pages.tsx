import { Elysia } from 'elysia';
import type { auditPlans } from '../../../db/schema';
import { CsrfField, Field, Select } from '../../../views/components/form';
import { DataTable, Text } from '../../../views/components/table';
import type { AppContext } from '../../platform/context';
import { canTouch, type Actor } from '../../platform/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-pages';
import { listRecords, type RecordView } from '../../platform/records';
import { AUDIT_PLAN_STATUSES, AuditPlanCreate, AuditPlanUpdate, FINDING_STATUSES, FindingCreate, FindingUpdate } from './schema';
import { auditPlanKind, findingChoices, findingKind } from './service';
import { controlKind } from '../controls/service';
import { RESTRICTED_NAME } from '../../platform/links';

type AuditPlanView = RecordView<typeof auditPlans>;

const readable = (value: string) => value.replaceAll('_', ' ');

/** The plan's findings, with a short form to add one for those who may create findings. */
async function findingsSection(ctx: AppContext, plan: AuditPlanView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const [findings, choices] = await Promise.all([
    listRecords(ctx.db, findingKind, viewer, { auditPlanId: plan.id, pageSize: 200, sort: 'title' }),
    findingChoices(ctx.db, viewer),
  ]);
  const controlName = new Map(choices.controls.map((c) => [c.value, c.label]));
  const canCreate = canTouch(viewer, 'audits:create', { ownerId: viewer.userId, ownerGroupId: null });
  return (
    <section id="findings">
      <h2>Findings</h2>
      <DataTable
        rows={findings.rows}
        empty="No findings for this plan."
        columns={[
          { header: 'Finding', cell: (f) => <a href={`/audits/findings/${f.id}`} safe>{f.title}</a> },
          { header: 'Status', cell: (f) => <Text value={readable(f.status)} /> },
          { header: 'Deadline', cell: (f) => <Text value={f.deadline ?? '—'} /> },
          { header: 'Control', cell: (f) => <Text value={f.controlId ? (controlName.get(f.controlId) ?? RESTRICTED_NAME) : '—'} /> },
          { header: 'Owner', cell: (f) => <Text value={f.owner?.name ?? f.ownerGroup?.name ?? '—'} /> },
        ]}
      />
      {findings.total > findings.rows.length && <p class="muted" safe>{`Showing ${findings.rows.length} of ${findings.total} findings.`}</p>}
      {canCreate && (
        <details>
          <summary>Add a finding</summary>
          <form method="post" action="/audits/findings" class="card form">
            <CsrfField token={csrfToken} />
            <input type="hidden" name="auditPlanId" value={plan.id} />
            <Field label="Title" name="title" required maxlength={300} />
            <Field label="Description" name="description" type="textarea" />
            <Field label="Deadline" name="deadline" type="date" />
            <Field label="Control" name="controlId">
              <Select name="controlId" options={[{ value: '', label: '—' }, ...choices.controls]} />
            </Field>
            <button type="submit">Add finding (open)</button>
          </form>
        </details>
      )}
    </section>
  );
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
        { header: 'Audit plan', value: (p) => p.title, link: true },
        { header: 'Period', value: (p) => (p.periodStart || p.periodEnd ? `${p.periodStart ?? '…'} – ${p.periodEnd ?? '…'}` : '') },
        { header: 'Status', value: (p) => readable(p.status) },
        ownerColumn(),
      ],
      sorts: [
        { value: '', label: 'Newest first' },
        { value: '-periodStart', label: 'Period, latest first' },
        { value: 'title', label: 'Title A–Z' },
        { value: 'status', label: 'Status' },
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
      columns: [
        { header: 'Finding', value: (f) => f.title, link: true },
        { header: 'Status', value: (f) => readable(f.status) },
        { header: 'Deadline', value: (f) => f.deadline },
        ownerColumn(),
      ],
      sorts: [
        { value: '', label: 'Newest first' },
        { value: 'deadline', label: 'Deadline, soonest first' },
        { value: 'title', label: 'Title A–Z' },
        { value: 'status', label: 'Status' },
      ],
    }));
