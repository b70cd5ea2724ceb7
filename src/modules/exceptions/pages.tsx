import { Elysia } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { levelOf, type Actor, type Permission } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import { policyParent, riskParent, type ExceptionParent } from './parents';
import { EXCEPTION_STATUSES } from './schema';
import { createException, decideException, listExceptions } from './service';
import { ExceptionList, ExceptionRequestForm, type ExceptionRequestValues } from './views';

type Query = Record<string, string | undefined>;

/** The exceptions register of one parent kind: listed with expiry shown and filtered; reviewers decide from the list. */
export function exceptionPages(ctx: AppContext, parent: ExceptionParent, parentBase: string, navKey: string, options: { requestForm?: boolean } = {}) {
  const base = `${parentBase}/exceptions`;
  const read = `${parent.module}:read` as Permission;
  const screen = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, query: Query, extra: { error?: string } = {}) => {
    const status = (EXCEPTION_STATUSES as readonly string[]).includes(query.status ?? '') ? query.status as (typeof EXCEPTION_STATUSES)[number] : undefined;
    const expired = query.expired === 'true' || query.expired === 'false' ? query.expired : undefined;
    const page = Math.max(1, Number(/^\d+$/.test(query.page ?? '') ? query.page : 1));
    const list = await listExceptions(ctx.db, parent, viewer, { page, pageSize: 50, status, expired, sort: 'expiresAt' });
    return renderScreen(headers, { title: `${parent.label} exceptions`, viewer, csrfToken, active: navKey },
      <ExceptionList title={`${parent.label} exceptions`} base={base} parentBase={parentBase} parentLabel={parent.label} csrfToken={csrfToken}
        {...list} status={status ?? ''} expired={expired ?? ''} canReview={levelOf(viewer, `${parent.module}:review` as Permission) !== null}
        done={query.done} error={extra.error} />);
  };
  const plugin = new Elysia({ name: `module:${parent.recordType}:pages` })
    .use(screenAuth(ctx))
    .get(base, ({ viewer, csrfToken, headers, query }) => screen(viewer, csrfToken, headers, query), { page: read })
    .post(`${base}/:id/decision`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const decision = formText(body, 'decision') === 'approved' ? 'approved' : 'rejected';
      const result = await attempt(() => runWrite(ctx, (tx) => decideException(tx, parent, viewer, params.id, { decision, note: formText(body, 'note') })));
      if (result.ok) return redirect(`${base}?done=${decision}`, 303);
      set.status = result.error.status;
      return screen(viewer, csrfToken, headers, {}, { error: result.error.message });
    }, { page: `${parent.module}:review` as Permission });

  // A request page of its own, for parents whose screens have no room for the form (the risk page has one).
  // (`:id` is the parent's id: the parent's own routes already name that path segment so.)
  if (!options.requestForm) return plugin;
  return plugin
    .get(`${parentBase}/:id/exceptions/new`, ({ viewer, csrfToken, headers, params }) =>
      requestScreen(viewer, csrfToken, headers, params.id, {}), { page: `${parent.module}:update` as Permission })
    .post(`${parentBase}/:id/exceptions`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = { title: formText(body, 'exceptionTitle'), description: formText(body, 'exceptionDescription'), expiresAt: formText(body, 'expiresAt') };
      const result = await attempt(() => runWrite(ctx, (tx) => createException(tx, parent, viewer, { parentId: params.id, ...values })));
      if (result.ok) return redirect(`${base}?done=requested`, 303);
      set.status = result.error.status;
      return requestScreen(viewer, csrfToken, headers, params.id, { values, errors: fieldErrors(result.error.problems), error: result.error.message });
    }, { page: `${parent.module}:update` as Permission });

  function requestScreen(viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, parentId: string,
    state: { values?: ExceptionRequestValues; errors?: Record<string, string>; error?: string }) {
    return renderScreen(headers, { title: `Request a ${parent.label.toLowerCase()} exception`, viewer, csrfToken, active: navKey },
      <>
        <p><a href={`${parentBase}/${parentId}`} safe>{`← Back to the ${parent.label.toLowerCase()}`}</a></p>
        <ExceptionRequestForm action={`${parentBase}/${parentId}/exceptions`} csrfToken={csrfToken} {...state} />
      </>);
  }
}

export const riskExceptionPages = (ctx: AppContext) => exceptionPages(ctx, riskParent, '/risks', 'riskExceptions');

/** Policy exceptions: the register with decisions, and a request page linked from each policy. */
export const policyExceptionPages = (ctx: AppContext) => exceptionPages(ctx, policyParent, '/policies', 'policyExceptions', { requestForm: true });
