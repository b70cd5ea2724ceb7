import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, Field, type FieldErrors } from '../../../views/components/form';
import { Swatch, When } from '../../../views/components/table';
import { FilteredList, type ListPage, type ListState } from '../../../views/components/list';
import type { LabelView } from './schema';

export interface LabelFormValues {
  name: string;
  color: string;
  description: string;
}

export interface LabelsScreenProps {
  csrfToken: string;
  labels: ListPage<LabelView>;
  state: ListState;
  canCreate: boolean;
  canUpdate: boolean;
  done?: string;
  /** The add form after a refusal: its values and inline errors. */
  form?: LabelFormValues;
  errors?: FieldErrors;
  /** A refused change or deletion of an existing label. */
  rowError?: string;
}

const DONE: Record<string, string> = { created: 'Label added.', updated: 'Label saved.', deleted: 'Label deleted.' };

/** Settings › Labels: the list, an inline edit form per label, and the add form. */
export function LabelsScreen(p: LabelsScreenProps): JSX.Element {
  const form = p.form ?? { name: '', color: '#888888', description: '' };
  return (
    <section>
      <p class="muted">Labels are a supporting list managed here and over /api/v1/labels; there is no CSV import.</p>
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      <FormError message={p.rowError} />
      <FilteredList<LabelView> path="/settings/labels" name="label" one="label" many="labels" state={p.state} page={p.labels} defaultSort="name"
        empty="No labels yet." search="Search names and descriptions"
        columns={[
          {
            header: 'Label', sort: 'name',
            cell: (label) => p.canUpdate
              ? (
                <form method="post" action={`/settings/labels/${label.id}`} id={`label-${label.id}`}>
                  <CsrfField token={p.csrfToken} />
                  <label class="visually-hidden" for={`name-${label.id}`}>Name</label>
                  <input id={`name-${label.id}`} name="name" value={label.name} required maxlength={80} />
                </form>
              )
              : <span class="tag"><Swatch color={label.color} /><span safe>{label.name}</span></span>,
          },
          {
            header: 'Colour', sort: 'color',
            cell: (label) => p.canUpdate
              ? <input form={`label-${label.id}`} type="color" name="color" value={label.color} aria-label={`Colour of ${label.name}`} />
              : <span safe>{label.color}</span>,
          },
          {
            header: 'Description', sort: 'description',
            cell: (label) => p.canUpdate
              ? <input form={`label-${label.id}`} name="description" value={label.description} maxlength={2000} aria-label={`Description of ${label.name}`} />
              : <span safe>{label.description}</span>,
          },
          { header: 'Added', sort: 'createdAt', cell: (label) => <When value={label.createdAt} local /> },
          ...(p.canUpdate ? [{
            header: 'Actions',
            cell: (label: LabelView) => (
              <>
                <button form={`label-${label.id}`} type="submit">Save</button>
                <a class="button danger" href={`/settings/labels/${label.id}/delete`} aria-label={`Delete ${label.name}`}>Delete</a>
              </>
            ),
          }] : []),
        ]}
      />
      {p.canCreate && (
        <form method="post" action="/settings/labels" id="add-label">
          <h2>Add a label</h2>
          <CsrfField token={p.csrfToken} />
          <Field label="Name" name="name" value={form.name} error={p.errors?.name} required maxlength={80} />
          <Field label="Colour" name="color" value={form.color} error={p.errors?.color} hint="#rrggbb">
            <input id="f-color" name="color" type="color" value={form.color} />
          </Field>
          <Field label="Description" name="description" value={form.description} error={p.errors?.description} maxlength={2000} />
          <button type="submit">Add label</button>
        </form>
      )}
    </section>
  );
}
