import type { Static, TObject } from '@sinclair/typebox';
import type { AppContext } from '../../platform/http/context';
import { runWrite } from '../../platform/http/context';
import { schemaProblems } from '../../platform/http/form-input';
import { AppError, invalid } from '../../platform/core/errors';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn, type ListColumn } from '../../platform/record-screens/record-pages';
import { listRecords, loadForAction } from '../../platform/records/records';
import { renderScreen } from '../../platform/http/screen';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { readable } from '../../platform/record-screens/record-views';
import { listRisks } from '../risks/service';
import { ContactCreate, ContactUpdate, RiskLinkCreate, SubProcessorCreate, THIRD_PARTY_STATUSES, THIRD_PARTY_TYPES, ThirdPartyCreate, ThirdPartyUpdate } from './schema';
import {
  addContact, addSubProcessor, linkRisk, listContacts, listLinkedRisks, listSubProcessors, removeContact, removeSubProcessor,
  thirdPartyKind, unlinkRisk, updateContact,
} from './service';
import { ContactsSection, RisksSection, SubProcessorsSection, PATH, CONTACT_FIELDS, ContactForm, type ThirdPartyView, type ContactValues } from './views';

/** The Third parties list's columns, also its CSV export's and the third parties report's. */
export const thirdPartyColumns: ListColumn<ThirdPartyView>[] = [
  { header: 'Name', value: (p) => p.name, link: true, sort: 'name' },
  { header: 'Type', value: (p) => readable(p.type), sort: 'type' },
  { header: 'Status', value: (p) => readable(p.status), sort: 'status' },
  { header: 'Website', value: (p) => p.website ?? '' },
  ownerColumn(),
];

async function contactsSection(ctx: AppContext, view: ThirdPartyView, viewer: Actor, csrfToken: string, canChange: boolean): Promise<JSX.Element> {
  const contacts = await listContacts(ctx.db, viewer, view.id);
  return <ContactsSection view={view} contacts={contacts} canChange={canChange} csrfToken={csrfToken} />;
}

async function risksSection(ctx: AppContext, view: ThirdPartyView, viewer: Actor, csrfToken: string, canChange: boolean): Promise<JSX.Element> {
  if (levelOf(viewer, 'risks:read') === null) return <RisksSection view={view} linked={null} choices={[]} canChange={false} csrfToken={csrfToken} />;
  const linked = await listLinkedRisks(ctx.db, viewer, view.id);
  const linkedIds = new Set(linked.map((r) => r.riskId));
  const readableRisks = canChange ? (await listRisks(ctx.db, viewer, { page: 1, pageSize: 200, sort: 'title' })).rows : [];
  const choices = readableRisks.filter((r) => !linkedIds.has(r.id)).map((r) => ({ value: r.id, label: r.title }));
  return <RisksSection view={view} linked={linked} choices={choices} canChange={canChange} csrfToken={csrfToken} />;
}

async function subProcessorsSection(ctx: AppContext, view: ThirdPartyView, viewer: Actor, csrfToken: string, canChange: boolean): Promise<JSX.Element> {
  const subs = await listSubProcessors(ctx.db, viewer, view.id);
  const taken = new Set([view.id, ...subs.map((s) => s.thirdPartyId)]);
  const candidates = canChange ? (await listRecords(ctx.db, thirdPartyKind, viewer, { page: 1, pageSize: 200, sort: 'name' })).rows : [];
  const choices = candidates.filter((c) => !taken.has(c.id)).map((c) => ({ value: c.id, label: c.name }));
  return <SubProcessorsSection view={view} subs={subs} choices={choices} canChange={canChange} csrfToken={csrfToken} />;
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
    columns: thirdPartyColumns,
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
