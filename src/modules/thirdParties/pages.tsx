import type { Static, TObject } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context';
import { runWrite } from '../../platform/context';
import { schemaProblems } from '../../platform/form-input';
import { AppError, invalid } from '../../platform/errors';
import { canTouch, levelOf, type Actor } from '../../platform/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-pages';
import { listRecords, loadForAction, type RecordView } from '../../platform/records';
import { renderScreen } from '../../../views/layout';
import { FormError } from '../../../views/components/flash';
import { attempt, CsrfField, Field, fieldErrors, formText, Select, type FieldErrors, type Option } from '../../../views/components/form';
import { DataTable, Text } from '../../../views/components/table';
import { readable } from '../../../views/records/record-views';
import type { thirdParties } from '../../../db/schema';
import { listRisks } from '../risks/service';
import { ContactCreate, ContactUpdate, RiskLinkCreate, SubProcessorCreate, THIRD_PARTY_STATUSES, THIRD_PARTY_TYPES, ThirdPartyCreate, ThirdPartyUpdate, type ContactView } from './schema';
import {
  addContact, addSubProcessor, linkRisk, listContacts, listLinkedRisks, listSubProcessors, removeContact, removeSubProcessor,
  thirdPartyKind, unlinkRisk, updateContact,
} from './service';

type ThirdPartyView = RecordView<typeof thirdParties>;
const PATH = '/third-parties';

/** A one-button form that posts to `action` (removing a contact or a link). */
const RemoveButton = ({ action, csrfToken, label }: { action: string; csrfToken: string; label: string }) => (
  <form method="post" action={action} class="inline">
    <CsrfField token={csrfToken} />
    <button type="submit" class="link danger" safe>{label}</button>
  </form>
);

/** A select of choices and a submit button, for adding a link. */
const LinkForm = ({ action, csrfToken, name, label, options, submit }: {
  action: string; csrfToken: string; name: string; label: string; options: Option[]; submit: string;
}) => (
  <form method="post" action={action} class="card form">
    <CsrfField token={csrfToken} />
    <Field label={label} name={name} required>
      <Select name={name} required options={[{ value: '', label: 'Choose…' }, ...options]} />
    </Field>
    <button type="submit" safe>{submit}</button>
  </form>
);

async function contactsSection(ctx: AppContext, view: ThirdPartyView, viewer: Actor, csrfToken: string, canChange: boolean): Promise<JSX.Element> {
  const contacts = await listContacts(ctx.db, viewer, view.id);
  const base = `${PATH}/${view.id}/contacts`;
  return (
    <section>
      <h2>Contacts</h2>
      <DataTable<ContactView>
        rows={contacts}
        empty="No contacts yet."
        columns={[
          { header: 'Name', cell: (c) => <Text value={c.name} /> },
          { header: 'Role', cell: (c) => <Text value={c.role} /> },
          { header: 'Email', cell: (c) => (c.email ? <a href={`mailto:${c.email}`} safe>{c.email}</a> : <span />) },
          { header: 'Phone', cell: (c) => <Text value={c.phone} /> },
          ...(canChange ? [{
            header: '',
            cell: (c: ContactView) => (
              <span class="actions">
                <a href={`${base}/${c.id}/edit`}>Edit</a>
                <RemoveButton action={`${base}/${c.id}/delete`} csrfToken={csrfToken} label="Remove" />
              </span>
            ),
          }] : []),
        ]}
      />
      {canChange && <p><a class="button" href={`${base}/new`}>Add contact</a></p>}
    </section>
  );
}

async function risksSection(ctx: AppContext, view: ThirdPartyView, viewer: Actor, csrfToken: string, canChange: boolean): Promise<JSX.Element> {
  if (levelOf(viewer, 'risks:read') === null) {
    return <section><h2>Linked risks</h2><p class="muted">Linked risks are shown to people who may read risks.</p></section>;
  }
  const linked = await listLinkedRisks(ctx.db, viewer, view.id);
  const linkedIds = new Set(linked.map((r) => r.riskId));
  const readableRisks = canChange ? (await listRisks(ctx.db, viewer, { page: 1, pageSize: 200, sort: 'title' })).rows : [];
  const choices = readableRisks.filter((r) => !linkedIds.has(r.id)).map((r) => ({ value: r.id, label: r.title }));
  return (
    <section>
      <h2>Linked risks</h2>
      <DataTable
        rows={linked}
        empty="No linked risks you may read."
        columns={[
          { header: 'Risk', cell: (r) => <a href={`/risks/${r.riskId}`} safe>{r.title}</a> },
          { header: 'Status', cell: (r) => <Text value={readable(r.status)} /> },
          ...(canChange ? [{
            header: '',
            cell: (r: { riskId: string }) => <RemoveButton action={`${PATH}/${view.id}/risks/${r.riskId}/delete`} csrfToken={csrfToken} label="Unlink" />,
          }] : []),
        ]}
      />
      {canChange && choices.length > 0 && (
        <LinkForm action={`${PATH}/${view.id}/risks`} csrfToken={csrfToken} name="riskId" label="Risk" options={choices} submit="Link risk" />
      )}
    </section>
  );
}

async function subProcessorsSection(ctx: AppContext, view: ThirdPartyView, viewer: Actor, csrfToken: string, canChange: boolean): Promise<JSX.Element> {
  const subs = await listSubProcessors(ctx.db, viewer, view.id);
  const taken = new Set([view.id, ...subs.map((s) => s.thirdPartyId)]);
  const candidates = canChange ? (await listRecords(ctx.db, thirdPartyKind, viewer, { page: 1, pageSize: 200, sort: 'name' })).rows : [];
  const choices = candidates.filter((c) => !taken.has(c.id)).map((c) => ({ value: c.id, label: c.name }));
  return (
    <section>
      <h2>Sub-processors</h2>
      <DataTable
        rows={subs}
        empty="No sub-processors."
        columns={[
          { header: 'Third party', cell: (s) => <a href={`${PATH}/${s.thirdPartyId}`} safe>{s.name}</a> },
          { header: 'Type', cell: (s) => <Text value={readable(s.type)} /> },
          { header: 'Status', cell: (s) => <Text value={readable(s.status)} /> },
          ...(canChange ? [{
            header: '',
            cell: (s: { thirdPartyId: string }) => <RemoveButton action={`${PATH}/${view.id}/sub-processors/${s.thirdPartyId}/delete`} csrfToken={csrfToken} label="Remove" />,
          }] : []),
        ]}
      />
      {canChange && choices.length > 0 && (
        <LinkForm action={`${PATH}/${view.id}/sub-processors`} csrfToken={csrfToken} name="thirdPartyId" label="Third party" options={choices} submit="Add sub-processor" />
      )}
    </section>
  );
}

async function sections(ctx: AppContext, view: ThirdPartyView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const canChange = canTouch(viewer, 'thirdParties:update', view);
  const [contacts, risks, subs] = await Promise.all([
    contactsSection(ctx, view, viewer, csrfToken, canChange),
    risksSection(ctx, view, viewer, csrfToken, canChange),
    subProcessorsSection(ctx, view, viewer, csrfToken, canChange),
  ]);
  return <>{contacts}{risks}{subs}</>;
}

const CONTACT_FIELDS = ['name', 'role', 'email', 'phone'] as const;
type ContactValues = Partial<Record<(typeof CONTACT_FIELDS)[number], string>>;

function ContactForm({ action, cancel, values, errors, error, csrfToken, submit }: {
  action: string; cancel: string; values: ContactValues; errors: FieldErrors; error?: string; csrfToken: string; submit: string;
}): JSX.Element {
  return (
    <form method="post" action={action} class="card form" novalidate>
      <CsrfField token={csrfToken} />
      <FormError message={error} />
      <Field label="Name" name="name" value={values.name} error={errors.name} required />
      <Field label="Role" name="role" value={values.role} error={errors.role} hint='e.g. "Account manager"' />
      <Field label="Email" name="email" type="email" value={values.email} error={errors.email} />
      <Field label="Phone" name="phone" value={values.phone} error={errors.phone} />
      <p class="actions">
        <button type="submit" safe>{submit}</button>
        <a href={cancel}>Cancel</a>
      </p>
    </form>
  );
}

/** Form strings to the REST shape: blanks are left out on add and cleared (null) on change. */
function contactInput(body: unknown, mode: 'create' | 'update'): ContactCreate {
  const input: Record<string, string | null> = {};
  for (const field of CONTACT_FIELDS) {
    const text = formText(body, field).trim();
    if (text !== '') input[field] = text;
    else if (field === 'name') input[field] = '';
    else if (mode === 'update') input[field] = null;
  }
  const problems = schemaProblems(mode === 'create' ? ContactCreate : ContactUpdate, input);
  if (problems.length) throw invalid(problems);
  return input as ContactCreate;
}

const contactValues = (body: unknown): ContactValues => Object.fromEntries(CONTACT_FIELDS.map((f) => [f, formText(body, f)]));

/** A link form's choice, checked against the REST body schema (a blank choice names the field). */
function linkInput<S extends TObject>(schema: S, body: unknown, field: string): Static<S> {
  const input = { [field]: formText(body, field) };
  const problems = schemaProblems(schema, input);
  if (problems.length) throw invalid(problems);
  return input as Static<S>;
}

export const thirdPartyPages = (ctx: AppContext) =>
  recordPages(ctx, thirdPartyKind, {
    path: PATH,
    title: 'Third parties',
    singular: 'Third party',
    navKey: 'thirdParties',
    Create: ThirdPartyCreate,
    Update: ThirdPartyUpdate,
    statuses: THIRD_PARTY_STATUSES,
    importable: true,
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'textarea' },
      { name: 'type', label: 'Type', kind: 'select', options: THIRD_PARTY_TYPES, hint: 'Blank gives vendor' },
      { name: 'status', label: 'Status', kind: 'select', options: THIRD_PARTY_STATUSES, hint: 'Blank gives active' },
      { name: 'website', label: 'Website', kind: 'url', hint: 'An http:// or https:// address' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Name', value: (p) => p.name, link: true },
      { header: 'Type', value: (p) => readable(p.type) },
      { header: 'Status', value: (p) => readable(p.status) },
      { header: 'Website', value: (p) => p.website ?? '' },
      ownerColumn(),
    ],
    sorts: [
      { value: '', label: 'Newest first' },
      { value: 'name', label: 'Name A–Z' },
      { value: 'type', label: 'Type' },
      { value: 'status', label: 'Status' },
      { value: '-updatedAt', label: 'Recently updated' },
    ],
    sections: (view, viewer, csrfToken) => sections(ctx, view, viewer, csrfToken),
  })
    .get(`${PATH}/:id/contacts/new`, async ({ viewer, csrfToken, headers, params }) => {
      const party = (await loadForAction(ctx.db, thirdPartyKind, viewer, params.id, 'update')).id;
      return renderScreen(headers, { title: 'Add contact', viewer, csrfToken, active: 'thirdParties' },
        <ContactForm action={`${PATH}/${party}/contacts`} cancel={`${PATH}/${party}`} values={{}} errors={{}} csrfToken={csrfToken} submit="Add contact" />);
    }, { page: 'thirdParties:update' })
    .post(`${PATH}/:id/contacts`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => addContact(tx, viewer, params.id, contactInput(body, 'create'))));
      if (result.ok) return redirect(`${PATH}/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Add contact', viewer, csrfToken, active: 'thirdParties' },
        <ContactForm action={`${PATH}/${params.id}/contacts`} cancel={`${PATH}/${params.id}`} values={contactValues(body)}
          errors={fieldErrors(result.error.problems)} error="Please correct the fields marked below." csrfToken={csrfToken} submit="Add contact" />);
    }, { page: 'thirdParties:update' })
    .get(`${PATH}/:id/contacts/:contactId/edit`, async ({ viewer, csrfToken, headers, params }) => {
      const contact = (await listContacts(ctx.db, viewer, params.id)).find((c) => c.id === params.contactId);
      if (!contact) throw new AppError('NOT_FOUND', `Contact ${params.contactId} not found`);
      const values = Object.fromEntries(CONTACT_FIELDS.map((f) => [f, contact[f] ?? '']));
      return renderScreen(headers, { title: 'Edit contact', viewer, csrfToken, active: 'thirdParties' },
        <ContactForm action={`${PATH}/${params.id}/contacts/${contact.id}`} cancel={`${PATH}/${params.id}`} values={values} errors={{}}
          csrfToken={csrfToken} submit="Save contact" />);
    }, { page: 'thirdParties:update' })
    .post(`${PATH}/:id/contacts/:contactId`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => updateContact(tx, viewer, params.id, params.contactId, contactInput(body, 'update'))));
      if (result.ok) return redirect(`${PATH}/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Edit contact', viewer, csrfToken, active: 'thirdParties' },
        <ContactForm action={`${PATH}/${params.id}/contacts/${params.contactId}`} cancel={`${PATH}/${params.id}`} values={contactValues(body)}
          errors={fieldErrors(result.error.problems)} error="Please correct the fields marked below." csrfToken={csrfToken} submit="Save contact" />);
    }, { page: 'thirdParties:update' })
    .post(`${PATH}/:id/contacts/:contactId/delete`, async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => removeContact(tx, viewer, params.id, params.contactId));
      return redirect(`${PATH}/${params.id}?done=updated`, 303);
    }, { page: 'thirdParties:update' })
    .post(`${PATH}/:id/risks`, async ({ viewer, params, body, redirect }) => {
      const input = linkInput(RiskLinkCreate, body, 'riskId');
      await runWrite(ctx, (tx) => linkRisk(tx, viewer, params.id, input));
      return redirect(`${PATH}/${params.id}?done=updated`, 303);
    }, { page: 'thirdParties:update' })
    .post(`${PATH}/:id/risks/:riskId/delete`, async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => unlinkRisk(tx, viewer, params.id, params.riskId));
      return redirect(`${PATH}/${params.id}?done=updated`, 303);
    }, { page: 'thirdParties:update' })
    .post(`${PATH}/:id/sub-processors`, async ({ viewer, params, body, redirect }) => {
      const input = linkInput(SubProcessorCreate, body, 'thirdPartyId');
      await runWrite(ctx, (tx) => addSubProcessor(tx, viewer, params.id, input));
      return redirect(`${PATH}/${params.id}?done=updated`, 303);
    }, { page: 'thirdParties:update' })
    .post(`${PATH}/:id/sub-processors/:subProcessorId/delete`, async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => removeSubProcessor(tx, viewer, params.id, params.subProcessorId));
      return redirect(`${PATH}/${params.id}?done=updated`, 303);
    }, { page: 'thirdParties:update' });
