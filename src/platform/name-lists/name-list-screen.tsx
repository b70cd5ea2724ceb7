import { Elysia } from 'elysia';
import { Flash } from '../../../views/components/flash';
import { CsrfField, Field, fieldErrors, type FieldErrors } from '../../../views/components/form';
import { DataTable, Text } from '../../../views/components/table';
import { runWrite, type AppContext } from '../http/context';
import { invalid } from '../core/errors';
import { attempt, formText, schemaProblems } from '../http/form-input';
import { renderScreen } from '../http/screen';
import { screenAuth } from '../http/screen-auth';
import { levelOf, type Actor } from '../permissions/permissions';
import { DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH, NameListInput, usedByText, type NameList, type NameListView } from './name-list';

/**
 * A name list's Settings section: the entries with how many records use each, an inline rename form per entry and a
 * delete button on the unused ones (for settings:update), and the add form (for settings:create). A refused change
 * shows the screen again with the reason inside it, the add form keeping what was typed.
 */

export interface NameListScreenOptions {
  /** The Settings screen showing the section: '/settings/risks'. */
  path: string;
  /** The section's id and the last part of its forms' addresses: 'classifications' (POST /settings/risks/classifications). */
  anchor: string;
  /** The section's heading: 'Classifications'. */
  heading: string;
  /** One entry, in a sentence: 'classification' ("New classification", "Classification added."). */
  noun: string;
  /** Shown when the list is empty. */
  empty: string;
  /** Where one screen shows two lists: the add form's input ids start with it, so no id is repeated on the page. */
  idPrefix?: string;
  /**
   * The screen around the section. Given `page`, the kit serves GET `path` as a Settings page of its own (opened with
   * settings:read); otherwise the module serves it and gives `render`, which the kit calls to show a refusal.
   */
  page?: { title: string; navKey: string };
  render?: (request: ScreenRequest, state: NameListState) => Promise<JSX.Element>;
}

export interface ScreenRequest {
  headers: Record<string, string | undefined>;
  viewer: Actor;
  csrfToken: string;
}

/** What the section shows beyond the list: the outcome of the last change, or a refusal. */
export interface NameListState {
  /** `<anchor>-created`, `-updated` or `-deleted` after a change (the screen's `done` query). */
  done?: string;
  /** A refused rename or deletion. */
  error?: string;
  /** The add form after a refusal: what was typed and the problems by field. */
  form?: { name: string; description: string };
  errors?: FieldErrors;
}

interface SectionProps<C extends string> {
  options: NameListScreenOptions;
  countField: C;
  usedBy: { one: string; many: string };
  rows: NameListView<C>[];
  csrfToken: string;
  canCreate: boolean;
  canUpdate: boolean;
  state: NameListState;
}

const capital = (text: string) => text[0].toUpperCase() + text.slice(1);

export function NameListSection<C extends string>(props: SectionProps<C>): JSX.Element {
  const { options, csrfToken, canUpdate, state, countField } = props;
  const action = `${options.path}/${options.anchor}`;
  const form = state.form ?? { name: '', description: '' };
  const errors = state.errors ?? {};
  const noun = capital(options.noun);
  const done: Record<string, string> = {
    [`${options.anchor}-created`]: `${noun} added.`, [`${options.anchor}-updated`]: `${noun} renamed.`, [`${options.anchor}-deleted`]: `${noun} deleted.`,
  };
  return (
    <section id={options.anchor} aria-labelledby={`${options.anchor}-heading`}>
      <h2 id={`${options.anchor}-heading`} safe>{options.heading}</h2>
      <Flash kind="success" message={state.done ? done[state.done] : undefined} />
      <Flash kind="error" message={state.error} />
      <DataTable<NameListView<C>>
        rows={props.rows}
        empty={options.empty}
        columns={[
          {
            header: 'Name',
            cell: (c) => canUpdate
              ? (
                <form method="post" action={`${action}/${c.id}`} class="inline">
                  <CsrfField token={csrfToken} />
                  <input type="text" name="name" value={c.name} maxlength={NAME_MAX_LENGTH} aria-label={`Name of ${c.name}`} required />
                  <input type="text" name="description" value={c.description} maxlength={DESCRIPTION_MAX_LENGTH} aria-label={`Description of ${c.name}`} />
                  <button type="submit" class="small secondary" aria-label={`Rename ${c.name}`}>Rename</button>
                </form>
              )
              : <span><Text value={c.name} /> <span class="muted" safe>{c.description}</span></span>,
          },
          { header: capital(props.usedBy.many), cell: (c) => <Text value={c[countField]} />, class: 'num' },
          ...(canUpdate ? [{
            header: 'Delete',
            cell: (c: NameListView<C>) => c[countField] > 0
              ? <span class="muted" safe>{`In use by ${usedByText(c[countField], props.usedBy)}`}</span>
              : (
                <form method="post" action={`${action}/${c.id}/delete`} class="inline" hx-confirm={`Delete the ${options.noun} "${c.name}"?`}>
                  <CsrfField token={csrfToken} />
                  <button type="submit" class="small danger" aria-label={`Delete ${c.name}`}>Delete</button>
                </form>
              ),
          }] : []),
        ]}
      />
      {props.canCreate && (
        <form method="post" action={action} class="card">
          <CsrfField token={csrfToken} />
          <Field label={`New ${options.noun}`} name="name" value={form.name} error={errors.name} required maxlength={NAME_MAX_LENGTH}
            id={options.idPrefix ? `${options.idPrefix}-name` : undefined} />
          <Field label="Description" name="description" value={form.description} error={errors.description} maxlength={DESCRIPTION_MAX_LENGTH}
            id={options.idPrefix ? `${options.idPrefix}-description` : undefined} />
          <button type="submit" safe>{`Add ${options.noun}`}</button>
        </form>
      )}
    </section>
  );
}

/** The section as this viewer sees it now, for a screen that shows it (the kit's own page, or a module's). */
export async function nameListSection<C extends string>(
  ctx: AppContext, list: NameList<C>, options: NameListScreenOptions, viewer: Actor, csrfToken: string, state: NameListState = {},
): Promise<JSX.Element> {
  const page = await list.list(ctx.db, viewer, { page: 1, pageSize: 200 });
  const { usedBy } = list.spec;
  return (
    <NameListSection options={options} countField={usedBy.countField} usedBy={usedBy}
      rows={page.rows} csrfToken={csrfToken} canCreate={levelOf(viewer, 'settings:create') !== null}
      canUpdate={levelOf(viewer, 'settings:update') !== null} state={state} />
  );
}

/** The form's strings as the REST body, so the same schema and service judge them. */
const formOf = (body: unknown) => ({ name: formText(body, 'name'), description: formText(body, 'description') });

/**
 * The section's routes: POST `<path>/<anchor>` adds, `<path>/<anchor>/:id` renames and describes,
 * `<path>/<anchor>/:id/delete` deletes; each answers with a redirect to the screen, or the screen with the refusal.
 */
export function nameListPages<C extends string>(ctx: AppContext, list: NameList<C>, options: NameListScreenOptions) {
  const action = `${options.path}/${options.anchor}`;
  const { page, render } = options;
  if (!page === !render) throw new Error(`The name list section at ${action} needs either page or render`);
  const screen = async (request: ScreenRequest, state: NameListState): Promise<JSX.Element> => {
    if (render) return render(request, state);
    const section = await nameListSection(ctx, list, options, request.viewer, request.csrfToken, state);
    return renderScreen(request.headers, { title: page?.title ?? options.heading, viewer: request.viewer, csrfToken: request.csrfToken, active: page?.navKey }, section);
  };
  const doneAt = (what: 'created' | 'updated' | 'deleted') => `${options.path}?done=${options.anchor}-${what}#${options.anchor}`;
  const write = async (body: unknown, work: (input: { name: string; description: string }) => Promise<unknown>) => {
    const form = formOf(body);
    return { form, result: await attempt(async () => {
      const problems = schemaProblems(NameListInput, form);
      if (problems.length) throw invalid(problems);
      return work(form);
    }) };
  };

  const routes = new Elysia({ name: `module:name-list:${action}` }).use(screenAuth(ctx));
  const withPage = page
    ? routes.get(options.path, ({ viewer, csrfToken, headers, query }) => screen({ headers, viewer, csrfToken }, { done: query.done }), { page: 'settings:read' })
    : routes;
  return withPage
    .post(action, async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const { form, result } = await write(body, (input) => runWrite(ctx, (tx) => list.create(tx, viewer, input)));
      if (result.ok) return redirect(doneAt('created'), 303);
      set.status = result.error.status;
      const problems = result.error.problems;
      return screen({ headers, viewer, csrfToken }, { form, errors: problems.length ? fieldErrors(problems) : { name: result.error.message } });
    }, { page: 'settings:create' })
    .post(`${action}/:id`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const { result } = await write(body, (input) => runWrite(ctx, (tx) => list.update(tx, viewer, params.id, input)));
      if (result.ok) return redirect(doneAt('updated'), 303);
      set.status = result.error.status;
      const problems = result.error.problems;
      const error = problems.length ? `Not renamed: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}` : result.error.message;
      return screen({ headers, viewer, csrfToken }, { error });
    }, { page: 'settings:update' })
    .post(`${action}/:id/delete`, async ({ viewer, csrfToken, headers, params, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => list.remove(tx, viewer, params.id)));
      if (result.ok) return redirect(doneAt('deleted'), 303);
      set.status = result.error.status;
      return screen({ headers, viewer, csrfToken }, { error: result.error.message });
    }, { page: 'settings:update' });
}
