import { Elysia } from 'elysia';
import { renderScreen } from '../../platform/http/screen';
import { attempt, formText } from '../../platform/http/form-input';
import { runWrite, type AppContext } from '../../platform/http/context';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import { isUuid } from '../../platform/core/uuid';
import { listPackages } from './packages-service';
import { applyStatusCopy, crosswalk, previewStatusCopy, readPreviewed } from './crosswalk-service';
import { COMPARE_PATH, ComparePage, CopyPreviewPage } from './views/crosswalk';

const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: 'compliance' });
const sideOf = (value: string) => (value === 'right' ? 'right' : 'left');

/**
 * Compliance › Packages › Compare: two packages' requirements that share mapped controls, side by side, and the
 * reviewed bulk action copying statuses from one package to the other (preview, then Apply).
 */
export const crosswalkPages = (ctx: AppContext) => {
  const comparePage = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, left: string, right: string,
    extra: { error?: string; done?: string } = {}) => {
    const packages = await listPackages(ctx.db, viewer, { page: 1, pageSize: 200, sort: 'name' });
    const options = packages.rows.map((p) => ({ value: p.id, label: p.name }));
    let error = extra.error;
    let view = null;
    if (left && right) {
      const result = isUuid(left) && isUuid(right) ? await attempt(() => crosswalk(ctx.db, viewer, left, right)) : null;
      if (result?.ok) view = result.value;
      else error ??= result ? result.error.problems.map((p) => p.message).join('; ') || result.error.message : 'Choose two packages.';
    }
    return renderScreen(headers, shell('Compare packages', viewer, csrfToken),
      <ComparePage packages={options} left={left} right={right} view={view} canUpdate={levelOf(viewer, 'compliance:update') !== null}
        csrfToken={csrfToken} error={error} done={extra.done} />);
  };

  return new Elysia({ name: 'pages:compliance-crosswalk' })
    .use(screenAuth(ctx))
    .get(COMPARE_PATH, ({ viewer, csrfToken, headers, query }) => {
      const copied = /^\d{1,6}$/.test(query.copied ?? '') ? Number(query.copied) : null;
      return comparePage(viewer, csrfToken, headers, query.left ?? '', query.right ?? '',
        { done: copied === null ? undefined : `Status copied to ${copied} requirement${copied === 1 ? '' : 's'}.` });
    }, { page: 'compliance:read' })
    // The preview: what copying would change; nothing is written.
    .post(`${COMPARE_PATH}/preview`, async ({ viewer, csrfToken, headers, body }) => {
      const preview = await previewStatusCopy(ctx.db, viewer, formText(body, 'left'), formText(body, 'right'), sideOf(formText(body, 'from')));
      return renderScreen(headers, shell('Copy statuses', viewer, csrfToken), <CopyPreviewPage preview={preview} csrfToken={csrfToken} />);
    }, { page: 'compliance:update' })
    // Apply: exactly what was previewed, in one transaction, or nothing (409 with the new preview).
    .post(`${COMPARE_PATH}/apply`, async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const left = formText(body, 'left');
      const right = formText(body, 'right');
      const from = sideOf(formText(body, 'from'));
      const result = await attempt(() => runWrite(ctx, (tx) => applyStatusCopy(tx, viewer, left, right, from, readPreviewed(formText(body, 'changes')))));
      if (result.ok) return redirect(`${COMPARE_PATH}?left=${left}&right=${right}&copied=${result.value}`, 303);
      set.status = result.error.status;
      const preview = await previewStatusCopy(ctx.db, viewer, left, right, from);
      return renderScreen(headers, shell('Copy statuses', viewer, csrfToken),
        <CopyPreviewPage preview={preview} csrfToken={csrfToken} error={result.error.problems.map((p) => p.message).join('; ') || result.error.message} />);
    }, { page: 'compliance:update' });
};
