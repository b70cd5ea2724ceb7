import { readable } from '../../platform/record-screens/record-views';
import { Elysia } from 'elysia';
import type { policies } from '../../../db/schema';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import { runWrite, type AppContext } from '../../platform/http/context';
import { invalid, notFound, type AppError } from '../../platform/core/errors';
import { schemaProblems } from '../../platform/http/form-input';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { getRecord, type RecordView } from '../../platform/records/records';
import { screenAuth } from '../../platform/http/screen-auth';
import { POLICY_STATUSES, PolicyApprovalCreate, PolicyContent, PolicyCreate, PolicyReviewCreate, PolicyUpdate } from './schema';
import {
  listPolicyApprovals, listPolicyVersions, policyKind, policyReviewSchedule, publishPolicy, recordPolicyApproval,
  recordPolicyReview, setPolicyContent,
} from './service';
import { getPolicySettings, outsideApprovalsAllowed, savePolicySettings } from './settings-service';
import { ApprovalForm, ContentForm, PolicySections, PolicySettingsForm, ReviewForm, VersionPage, type FormState } from './views';

type PolicyView = RecordView<typeof policies>;

const shell = (title: string, viewer: Actor, csrfToken: string, active = 'policies') => ({ title, viewer, csrfToken, active });

/** The values a refused sub-form is shown again with, and its problems inline. */
const refusedState = (body: unknown, names: string[], error: AppError): FormState => ({
  values: Object.fromEntries(names.map((n) => [n, formText(body, n)])),
  errors: fieldErrors(error.problems),
  error: error.problems.length ? 'Please correct the fields marked below.' : error.message,
});

/** Form strings checked against the REST schema, so the screen and the API refuse the same things. */
function checked<T>(schema: Parameters<typeof schemaProblems>[0], input: Record<string, unknown>): T {
  const problems = schemaProblems(schema, input);
  if (problems.length) throw invalid(problems);
  return input as T;
}

async function sections(ctx: AppContext, view: PolicyView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const [versions, reviews, approvals, approvalsAllowed] = await Promise.all([
    listPolicyVersions(ctx.db, viewer, view.id), policyReviewSchedule(ctx.db, viewer, view.id),
    listPolicyApprovals(ctx.db, viewer, view.id), outsideApprovalsAllowed(ctx.db),
  ]);
  return (
    <PolicySections id={view.id} content={view.content} status={view.status} currentVersion={view.currentVersion}
      versions={versions} reviews={reviews} approvals={approvals} approvalsAllowed={approvalsAllowed} csrfToken={csrfToken}
      canUpdate={canTouch(viewer, 'policies:update', view)} canReview={canTouch(viewer, 'policies:review', view)} />
  );
}

/** The register's screens and its sub-resource forms. */
export const policyPages = (ctx: AppContext) =>
  recordPages(ctx, policyKind, {
    path: '/policies',
    title: 'Policies',
    singular: 'Policy',
    navKey: 'policies',
    Create: PolicyCreate,
    Update: PolicyUpdate,
    statuses: POLICY_STATUSES,
    importable: true,
    fields: [
      { name: 'title', label: 'Title', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'textarea' },
      { name: 'reviewFrequencyMonths', label: 'Review every (months)', kind: 'number', hint: '1 to 120; blank gives 12' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Title', value: (p) => p.title, link: true, sort: 'title' },
      { header: 'Status', value: (p) => readable(p.status), sort: 'status' },
      { header: 'Version', value: (p) => (p.currentVersion ? String(p.currentVersion) : '—'), sort: 'currentVersion' },
      ownerColumn(),
    ],
    sections: (view, viewer, csrfToken) => sections(ctx, view, viewer, csrfToken),
  })
    .get('/policies/:id/content', async ({ viewer, csrfToken, headers, params }) => {
      const view = await getRecord(ctx.db, policyKind, viewer, params.id);
      if (!canTouch(viewer, 'policies:update', view)) return renderScreen(headers, shell(view.title, viewer, csrfToken), <p>You may read this policy but not change its content.</p>);
      return renderScreen(headers, shell(`Edit content: ${view.title}`, viewer, csrfToken),
        <ContentForm id={view.id} csrfToken={csrfToken} state={{ values: { content: view.content } }} />);
    }, { page: 'policies:update' })
    .post('/policies/:id/content', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) =>
        setPolicyContent(tx, viewer, params.id, checked(PolicyContent, { content: formText(body, 'content').replace(/\s+$/, '') }))));
      if (result.ok) return redirect(`/policies/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      return renderScreen(headers, shell('Edit content', viewer, csrfToken),
        <ContentForm id={params.id} csrfToken={csrfToken} state={refusedState(body, ['content'], result.error)} />);
    }, { page: 'policies:update' })
    .post('/policies/:id/publish', async ({ viewer, csrfToken, headers, params, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => publishPolicy(tx, viewer, params.id)));
      if (result.ok) return redirect(`/policies/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      return renderScreen(headers, shell('Not published', viewer, csrfToken),
        <><div class="flash flash-error" role="alert" safe>{result.error.message}</div><p><a href={`/policies/${params.id}`}>← Back to the policy</a></p></>);
    }, { page: 'policies:update' })
    .get('/policies/:id/versions/:version', async ({ viewer, csrfToken, headers, params }) => {
      const view = await getRecord(ctx.db, policyKind, viewer, params.id);
      const version = (await listPolicyVersions(ctx.db, viewer, params.id)).find((v) => String(v.version) === params.version);
      if (!version) throw notFound(`Version ${params.version} of policy ${params.id}`);
      return renderScreen(headers, shell(`${view.title}: version ${version.version}`, viewer, csrfToken), <VersionPage id={view.id} version={version} />);
    }, { page: 'policies:read' })
    .post('/policies/:id/reviews', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const names = ['reviewedOn', 'outcome', 'notes'];
      const result = await attempt(() => runWrite(ctx, (tx) => recordPolicyReview(tx, viewer, params.id,
        checked(PolicyReviewCreate, Object.fromEntries(names.map((n) => [n, formText(body, n)]))))));
      if (result.ok) return redirect(`/policies/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      return renderScreen(headers, shell('Record review', viewer, csrfToken),
        <ReviewForm id={params.id} csrfToken={csrfToken} state={refusedState(body, names, result.error)} />);
    }, { page: 'policies:review' })
    .post('/policies/:id/approvals', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const names = ['approverName', 'approvedOn', 'version'];
      const version = formText(body, 'version');
      const input = { approverName: formText(body, 'approverName'), approvedOn: formText(body, 'approvedOn'), ...(version ? { version: Number(version) } : {}) };
      const result = await attempt(() => runWrite(ctx, (tx) => recordPolicyApproval(tx, viewer, params.id, checked(PolicyApprovalCreate, input))));
      if (result.ok) return redirect(`/policies/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      const versions = await listPolicyVersions(ctx.db, viewer, params.id);
      return renderScreen(headers, shell('Record approval', viewer, csrfToken),
        <ApprovalForm id={params.id} csrfToken={csrfToken} versions={versions} state={refusedState(body, names, result.error)} />);
    }, { page: 'policies:review' });

/** Settings › Policy settings: the 'Allow recording outside approvals' toggle (opens with settings:read, saves with settings:update). */
export const policySettingsPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:policy-settings' })
    .use(screenAuth(ctx))
    .get('/settings/policies', async ({ viewer, csrfToken, headers, query }) => {
      const current = await getPolicySettings(ctx.db, viewer);
      return renderScreen(headers, shell('Policy settings', viewer, csrfToken, 'policy-settings'),
        <PolicySettingsForm allowOutsideApprovals={current.allowOutsideApprovals} canUpdate={levelOf(viewer, 'settings:update') !== null}
          csrfToken={csrfToken} saved={query.done === 'saved'} />);
    }, { page: 'settings:read' })
    .post('/settings/policies', async ({ viewer, body, redirect }) => {
      await runWrite(ctx, (tx) => savePolicySettings(tx, viewer, { allowOutsideApprovals: formText(body, 'allowOutsideApprovals') === 'on' }));
      return redirect('/settings/policies?done=saved', 303);
    }, { page: 'settings:update' });
