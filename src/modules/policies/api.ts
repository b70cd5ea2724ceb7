import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, IdParam } from '../../platform/http/envelopes';
import { getRecord } from '../../platform/records/records';
import { batchOf, BatchResults } from '../../platform/records/batch';
import { recordApi, recordBatchApi } from '../../platform/records/record-api';
import {
  PolicyApprovalCreate, PolicyApprovalView, PolicyBatchCreate, PolicyBatchUpdate, PolicyContent, PolicyCreate, PolicyListQuery, PolicyPublishItem,
  PolicyReviewCreate, PolicyReviews, PolicySettings, PolicyUpdate, PolicyVersionView, PolicyView, PublishedVersion,
} from './schema';
import {
  listPolicyApprovals, listPolicyVersions, policyKind, policyReviewSchedule, publishPolicies, publishPolicy, recordPolicyApproval,
  recordPolicyReview, setPolicyContent,
} from './service';
import { policyApprovalSettings } from './settings-service';

const tags = ['Policies'];

export const policiesApi = (ctx: AppContext) =>
  recordApi(ctx, policyKind, { path: '/policies', tag: 'Policies', plural: 'policies', Create: PolicyCreate, Update: PolicyUpdate, View: PolicyView, ListQuery: PolicyListQuery })
    .use(recordBatchApi(ctx, policyKind, { path: '/policies', tag: 'Policies', plural: 'policies', Create: PolicyBatchCreate, Update: PolicyBatchUpdate }))
    .post('/batch/publish', async ({ actor, body }) => ({
      data: { results: await runWrite(ctx, (tx) => publishPolicies(tx, actor, body.items.map((item) => item.id))) },
    }), {
      scope: 'policies:update', body: batchOf(PolicyPublishItem, 'Each a policy to publish.'),
      response: BatchResults,
      detail: { tags, summary: 'Publish many policies in one transaction, each as POST /{id}/publish (the result id is the new version\'s)' },
    })
    .get('/settings', async ({ actor }) => ({ data: await policyApprovalSettings(ctx.db, actor) }), {
      scope: 'policies:read', response: Data(PolicySettings),
      detail: { tags, summary: "Whether 'Allow recording outside approvals' is on (read only; it is changed in Settings › Policies)" },
    })
    .put('/:id/content', async ({ actor, params, body }) => {
      await runWrite(ctx, (tx) => setPolicyContent(tx, actor, params.id, body));
      // The kit's view type does not carry custom fields; the record read does (policyKind.customFields).
      return { data: (await getRecord(ctx.db, policyKind, actor, params.id)) as Static<typeof PolicyView> };
    }, {
      scope: 'policies:update', params: IdParam, body: PolicyContent, response: Data(PolicyView),
      detail: { tags, summary: "Replace a policy's draft content (Markdown); published versions never change" },
    })
    .post('/:id/publish', async ({ actor, params, set }) => {
      const published = await runWrite(ctx, (tx) => publishPolicy(tx, actor, params.id));
      set.status = 201;
      return { data: published };
    }, {
      scope: 'policies:update', params: IdParam, response: { 201: PublishedVersion },
      detail: { tags, summary: 'Publish the draft as the next immutable version (409 when empty or unchanged)' },
    })
    .get('/:id/versions', async ({ actor, params }) => ({ data: await listPolicyVersions(ctx.db, actor, params.id) }), {
      scope: 'policies:read', params: IdParam, response: Data(t.Array(PolicyVersionView)),
      detail: { tags, summary: "A policy's published versions, newest first" },
    })
    .get('/:id/reviews', async ({ actor, params }) => ({ data: await policyReviewSchedule(ctx.db, actor, params.id) }), {
      scope: 'policies:read', params: IdParam, response: Data(PolicyReviews),
      detail: { tags, summary: "A policy's reviews and next review due" },
    })
    .post('/:id/reviews', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => recordPolicyReview(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, { scope: 'policies:review', params: IdParam, body: PolicyReviewCreate, response: { 201: Created }, detail: { tags, summary: 'Record a policy review' } })
    .get('/:id/approvals', async ({ actor, params }) => ({ data: await listPolicyApprovals(ctx.db, actor, params.id) }), {
      scope: 'policies:read', params: IdParam, response: Data(t.Array(PolicyApprovalView)),
      detail: { tags, summary: 'Approvals recorded outside the app' },
    })
    .post('/:id/approvals', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => recordPolicyApproval(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, {
      scope: 'policies:review', params: IdParam, body: PolicyApprovalCreate, response: { 201: Created },
      detail: { tags, summary: "Record an approval given outside the app (409 while the setting 'Allow recording outside approvals' is off)" },
    });
