import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, Field, type FieldErrors } from '../../../views/components/form';
import { Swatch } from '../../../views/components/table';
import type { LabelView } from './schema';

export interface LabelFormValues {
  name: string;
  color: string;
  description: string;
}

export interface LabelsScreenProps {
  csrfToken: string;
  labels: LabelView[];
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
      <div class="table-wrap">
        <table class="data" id="labels">
          <thead><tr><th scope="col">Label</th><th scope="col">Colour</th><th scope="col">Description</th>{p.canUpdate && <th scope="col">Actions</th>}</tr></thead>
          <tbody>
            {p.labels.length === 0
              ? <tr><td class="empty" colspan="4">No labels yet.</td></tr>
              : p.labels.map((label) => p.canUpdate
                ? (
                  <tr>
                    <td>
                      <form method="post" action={`/settings/labels/${label.id}`} id={`label-${label.id}`}>
                        <CsrfField token={p.csrfToken} />
                        <label class="visually-hidden" for={`name-${label.id}`}>Name</label>
                        <input id={`name-${label.id}`} name="name" value={label.name} required maxlength={80} />
                      </form>
                    </td>
                    <td><input form={`label-${label.id}`} type="color" name="color" value={label.color} aria-label={`Colour of ${label.name}`} /></td>
                    <td><input form={`label-${label.id}`} name="description" value={label.description} maxlength={2000} aria-label={`Description of ${label.name}`} /></td>
                    <td>
                      <button form={`label-${label.id}`} type="submit">Save</button>
                      <a class="button danger" href={`/settings/labels/${label.id}/delete`} aria-label={`Delete ${label.name}`}>Delete</a>
                    </td>
                  </tr>
                )
                : (
                  <tr>
                    <td><span class="tag"><Swatch color={label.color} /><span safe>{label.name}</span></span></td>
                    <td safe>{label.color}</td>
                    <td safe>{label.description}</td>
                  </tr>
                ))}
          </tbody>
        </table>
      </div>
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
