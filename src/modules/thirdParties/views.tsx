import type { RecordView } from '../../platform/records/records';
import { FormError } from '../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors, type Option } from '../../../views/components/form';
import { DataTable, Text } from '../../../views/components/table';
import { readable } from '../../platform/record-screens/record-views';
import type { thirdParties } from '../../../db/schema';
import type { ContactView, LinkedRiskView, SubProcessorView } from './schema';

export type ThirdPartyView = RecordView<typeof thirdParties>;

export const PATH = '/third-parties';

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

export const CONTACT_FIELDS = ['name', 'role', 'email', 'phone'] as const;

export type ContactValues = Partial<Record<(typeof CONTACT_FIELDS)[number], string>>;

export function ContactForm({ action, cancel, values, errors, error, csrfToken, submit }: {
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

/** The third party's contacts, with edit and remove for those who may change it. */
export function ContactsSection({ view, contacts, canChange, csrfToken }: {
  view: ThirdPartyView; contacts: ContactView[]; canChange: boolean; csrfToken: string;
}): JSX.Element {
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

/** Risks linked to the third party (null: the viewer may not read risks), with unlink and a link form for those who may change it. */
export function RisksSection({ view, linked, choices, canChange, csrfToken }: {
  view: ThirdPartyView; linked: LinkedRiskView[] | null; choices: Option[]; canChange: boolean; csrfToken: string;
}): JSX.Element {
  if (linked === null) {
    return <section><h2>Linked risks</h2><p class="muted">Linked risks are shown to people who may read risks.</p></section>;
  }
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

/** The third party's sub-processors, with remove and an add form for those who may change it. */
export function SubProcessorsSection({ view, subs, choices, canChange, csrfToken }: {
  view: ThirdPartyView; subs: SubProcessorView[]; choices: Option[]; canChange: boolean; csrfToken: string;
}): JSX.Element {
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
