import { Elysia } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { canTouch, levelOf, type Actor, type Permission } from '../../platform/permissions/permissions';
import { describeHistory, historyWithParts } from '../../platform/records/history-format';
import { screenAuth } from '../../platform/http/screen-auth';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import { policyParent, riskParent, type ExceptionParent } from './parents';
import { EXCEPTION_SORTS, EXCEPTION_STATUSES, type ExceptionListQuery, type ExceptionView } from './schema';
import { exceptionColumns } from './reports';
import { toCsv } from '../../platform/csv/write';
import { platformService } from '../../platform/http/installed';
import { isUuid } from '../../platform/core/uuid';
import { createException, decideException, getException, listExceptions, updateException } from './service';
import { deciderOf, ExceptionList, ExceptionPage, ExceptionRequestForm, type ExceptionListFilters, type ExceptionRequestValues } from './views';

type Query = Record<string, string | undefined>;

/** Rows of the list's CSV export at most (as the registers' Export). */
const EXPORT_LIMIT = 5_000;

const SORTS = EXCEPTION_SORTS.flatMap((s) => [s, `-${s}`]);

/** The list's filters and sort as the address holds them; anything else in a field reads as no filter. */
function listFilters(query: Query): ExceptionListFilters {
  const pick = (value: string | undefined, allowed: readonly string[]) => (value !== undefined && allowed.includes(value) ? value : '');
  return {
    q: (query.q ?? '').trim().slice(0, 200),
    status: pick(query.status, EXCEPTION_STATUSES),
    expired: pick(query.expired, ['true', 'false']),
    ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '',
    sort: pick(query.sort, SORTS),
  };
}

/** The service's query for the list's filters: by expiry unless a header chose another order. */
const listQuery = (f: ExceptionListFilters): Omit<ExceptionListQuery, 'page' | 'pageSize'> => ({
  ...(f.q ? { q: f.q } : {}),
  ...(f.status ? { status: f.status as ExceptionListQuery['status'] } : {}),
  ...(f.expired ? { expired: f.expired as ExceptionListQuery['expired'] } : {}),
  ...(f.ownerId ? { ownerId: f.ownerId } : {}),
  sort: (f.sort || 'expiresAt') as ExceptionListQuery['sort'],
});

/** The exceptions register of one parent kind: listed with expiry shown and filtered; reviewers decide from the list. */
export function exceptionPages(ctx: AppContext, parent: ExceptionParent, parentBase: string, navKey: string, options: { requestForm?: boolean } = {}) {
  const base = `${parentBase}/exceptions`;
  const read = `${parent.module}:read` as Permission;
  const screen = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, query: Query, extra: { error?: string } = {}) => {
    const filters = listFilters(query);
    const page = Math.max(1, Number(/^\d+$/.test(query.page ?? '') ? query.page : 1));
    const [list, users] = await Promise.all([
      listExceptions(ctx.db, parent, viewer, { ...listQuery(filters), page, pageSize: 50 }),
      platformService('listUsers')(ctx.db),
    ]);
    return renderScreen(headers, { title: `${parent.label} exceptions`, viewer, csrfToken, active: navKey },
      <ExceptionList title={`${parent.label} exceptions`} base={base} parentBase={parentBase} parentLabel={parent.label} csrfToken={csrfToken}
        {...list} filters={filters} owners={users.map((u) => ({ value: u.id, label: u.name }))}
        canReview={levelOf(viewer, `${parent.module}:review` as Permission) !== null} decider={deciderOf(viewer)} done={query.done} error={extra.error} />);
  };
  const plugin = new Elysia({ name: `module:${parent.recordType}:pages` })
    .use(screenAuth(ctx))
    .get(base, ({ viewer, csrfToken, headers, query }) => screen(viewer, csrfToken, headers, query), { page: read })
    // The list as filtered and sorted on screen, as CSV (the register report's columns), at most EXPORT_LIMIT rows.
    .get(`${base}/export.csv`, async ({ viewer, query, set }) => {
      const chosen = listQuery(listFilters(query));
      const rows: ExceptionView[] = [];
      for (let page = 1; rows.length < EXPORT_LIMIT; page++) {
        const chunk = await listExceptions(ctx.db, parent, viewer, { ...chosen, page, pageSize: 200 });
        rows.push(...chunk.rows);
        if (page * 200 >= chunk.total) break;
      }
      const columns = exceptionColumns(parent);
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="${base.slice(1).replaceAll('/', '-')}-${new Date().toISOString().slice(0, 10)}.csv"`;
      return toCsv([columns.map((c) => c.header), ...rows.slice(0, EXPORT_LIMIT).map((e) => columns.map((c) => String(c.value(e) ?? '')))]);
    }, { page: read })
    .post(`${base}/:id/decision`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const decision = formText(body, 'decision') === 'approved' ? 'approved' : 'rejected';
      const decided = { decision, note: formText(body, 'note'), ...(formText(body, 'override') === 'on' ? { override: true } : {}) } as const;
      const fromRecord = formText(body, 'back') === 'record';
      const result = await attempt(() => runWrite(ctx, (tx) => decideException(tx, parent, viewer, params.id, decided)));
      if (result.ok) return redirect(fromRecord ? `${base}/${params.id}?done=${decision}` : `${base}?done=${decision}`, 303);
      set.status = result.error.status;
      if (fromRecord) return recordScreen(viewer, csrfToken, headers, params.id, { refused: { values: undefined, errors: {}, message: result.error.message } });
      return screen(viewer, csrfToken, headers, {}, { error: result.error.message });
    }, { page: `${parent.module}:review` as Permission })
    .get(`${base}/:id`, ({ viewer, csrfToken, headers, params, query }) => recordScreen(viewer, csrfToken, headers, params.id, { done: query.done }), { page: read })
    .post(`${base}/:id`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = { title: formText(body, 'exceptionTitle'), description: formText(body, 'exceptionDescription'), expiresAt: formText(body, 'expiresAt') };
      const result = await attempt(() => runWrite(ctx, (tx) => updateException(tx, parent, viewer, params.id, values)));
      if (result.ok) return redirect(`${base}/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      const message = result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message;
      return recordScreen(viewer, csrfToken, headers, params.id, { refused: { values, errors: fieldErrors(result.error.problems), message } });
    }, { page: `${parent.module}:update` as Permission });

  /** One exception's page: its fields, the edit form while requested, the decision, its History. */
  async function recordScreen(viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, id: string,
    extra: { done?: string; refused?: { values: ExceptionRequestValues | undefined; errors: Record<string, string>; message: string } }) {
    const e = await getException(ctx.db, parent, viewer, id);
    const stored = await historyWithParts(ctx.db, parent.recordType, e.id);
    const history = await describeHistory(ctx.db, viewer, stored, { own: { recordType: parent.recordType, recordId: e.id } });
    const owned = { ownerId: e.ownerId, ownerGroupId: e.ownerGroupId };
    const refused = extra.refused ? { ...extra.refused, values: extra.refused.values ?? { title: e.title, description: e.description, expiresAt: e.expiresAt } } : undefined;
    return renderScreen(headers, { title: e.title, viewer, csrfToken, active: navKey },
      <ExceptionPage e={e} base={base} parentBase={parentBase} parentLabel={parent.label} csrfToken={csrfToken} history={history}
        canUpdate={canTouch(viewer, `${parent.module}:update` as Permission, owned)} canReview={levelOf(viewer, `${parent.module}:review` as Permission) !== null}
        decider={deciderOf(viewer)} done={extra.done} refused={refused} />);
  }

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
