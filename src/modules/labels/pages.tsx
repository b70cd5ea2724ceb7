import { Elysia } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { Shell } from '../../platform/http/screen';
import { ConfirmDelete } from '../../platform/record-screens/record-views';
import { createLabel, deleteLabel, getLabel, labelInUse, listLabels, updateLabel } from './service';
import { LabelsScreen, type LabelsScreenProps } from './views';
import { labelCsvColumns, labelListRules } from './lists';
import { chosenRows, everyRow, pageOfRows, ruledState } from '../../platform/http/list-query';
import { csvDownload } from '../../platform/csv/list-download';
import { readerZone } from '../../platform/csv/zone';

/** Settings › Labels: opens with settings:read; adding needs settings:create, saving and deleting settings:update. */
export const labelPages = (ctx: AppContext) => {
  /** Every label, chosen by the address's search and sort. */
  const chosen = async (viewer: Actor, query: Record<string, string | undefined>) => {
    const state = ruledState(query, labelListRules);
    return { state, rows: chosenRows(await everyRow((page, pageSize) => listLabels(ctx.db, viewer, { page, pageSize })), state, labelListRules) };
  };
  const screen = async (viewer: Actor, csrfToken: string, extra: Partial<LabelsScreenProps> = {}, query: Record<string, string | undefined> = {}) => {
    const { state, rows } = await chosen(viewer, query);
    const props: LabelsScreenProps = {
      csrfToken,
      labels: pageOfRows(rows, state),
      state,
      canCreate: levelOf(viewer, 'settings:create') !== null,
      canUpdate: levelOf(viewer, 'settings:update') !== null,
      ...extra,
    };
    return <Shell title="Labels" viewer={viewer} csrfToken={csrfToken} active="labels"><LabelsScreen {...props} /></Shell>;
  };
  /**
   * Deleting asks first on a page of its own; while records carry the label it says how many of each type, naming and
   * linking the first ten of each the viewer may read ("(restricted)" for the others), and deleting is refused.
   */
  const confirmDelete = async (viewer: Actor, csrfToken: string, id: string, refused?: string) => {
    const label = await getLabel(ctx.db, viewer, id);
    const uses = await labelInUse(ctx.db, viewer, id);
    return (
      <Shell title="Delete label" viewer={viewer} csrfToken={csrfToken} active="labels">
        <ConfirmDelete action={`/settings/labels/${id}/delete`} cancel="/settings/labels" what={`label "${label.name}"`} csrfToken={csrfToken}
          referrers={uses} refused={refused} lead="records still carry the"
          remedy="Remove the label from those records first: each list's Label filter finds them all" />
      </Shell>
    );
  };
  const formOf = (body: unknown) => ({ name: formText(body, 'name'), color: formText(body, 'color') || '#888888', description: formText(body, 'description') });

  return new Elysia({ name: 'module:labels:pages' })
    .use(screenAuth(ctx))
    .get('/settings/labels', ({ viewer, csrfToken, query }) => screen(viewer, csrfToken, { done: query.done }, query), { page: 'settings:read' })
    .get('/settings/labels/export.csv', async ({ viewer, query, set }) =>
      csvDownload(set, 'labels', labelCsvColumns(readerZone(query.tz)), (await chosen(viewer, query)).rows), { page: 'settings:read' })
    .post('/settings/labels', async ({ viewer, csrfToken, body, redirect, set }) => {
      const form = formOf(body);
      const result = await attempt(() => runWrite(ctx, (tx) => createLabel(tx, viewer, form)));
      if (result.ok) return redirect('/settings/labels?done=created', 303);
      set.status = result.error.status;
      const problems = result.error.problems;
      return screen(viewer, csrfToken, { form, errors: problems.length ? fieldErrors(problems) : { name: result.error.message } });
    }, { page: 'settings:create' })
    .post('/settings/labels/:id', async ({ viewer, csrfToken, params, body, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => updateLabel(tx, viewer, params.id, formOf(body))));
      if (result.ok) return redirect('/settings/labels?done=updated', 303);
      set.status = result.error.status;
      return screen(viewer, csrfToken, { rowError: result.error.message });
    }, { page: 'settings:update' })
    .get('/settings/labels/:id/delete', ({ viewer, csrfToken, params }) => confirmDelete(viewer, csrfToken, params.id), { page: 'settings:update' })
    .post('/settings/labels/:id/delete', async ({ viewer, csrfToken, params, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => deleteLabel(tx, viewer, params.id)));
      if (result.ok) return redirect('/settings/labels?done=deleted', 303);
      // Records still carry it (409): the confirmation again, naming them and why nothing was deleted.
      set.status = result.error.status;
      return confirmDelete(viewer, csrfToken, params.id, result.error.message);
    }, { page: 'settings:update' });
};
