import { t } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Created, Data, deletedResponses, IdParam } from '../../platform/http/envelopes';
import { recordApi } from '../../platform/records/record-api';
import {
  ContactCreate, ContactParams, ContactUpdate, ContactView, LinkCreated, LinkedRiskView, RiskLinkCreate, RiskLinkParams, SubProcessorCreate,
  SubProcessorParams, SubProcessorView, ThirdPartyCreate, ThirdPartyListQuery, ThirdPartyUpdate, ThirdPartyView,
} from './schema';
import {
  addContact, addSubProcessor, linkRisk, listContacts, listLinkedRisks, listSubProcessors, removeContact, removeSubProcessor,
  thirdPartyKind, unlinkRisk, updateContact,
} from './service';

const tags = ['Third parties'];

export const thirdPartiesApi = (ctx: AppContext) =>
  recordApi(ctx, thirdPartyKind, {
    path: '/third-parties', tag: 'Third parties', plural: 'third parties',
    Create: ThirdPartyCreate, Update: ThirdPartyUpdate, View: ThirdPartyView, ListQuery: ThirdPartyListQuery,
  })
    .get('/:id/contacts', async ({ actor, params }) => ({ data: await listContacts(ctx.db, actor, params.id) }), {
      scope: 'thirdParties:read', params: IdParam, response: Data(t.Array(ContactView)), detail: { tags, summary: "A third party's contacts" },
    })
    .post('/:id/contacts', async ({ actor, params, body, set }) => {
      const created = await runWrite(ctx, (tx) => addContact(tx, actor, params.id, body));
      set.status = 201;
      return { data: created };
    }, { scope: 'thirdParties:update', params: IdParam, body: ContactCreate, response: { 201: Created }, detail: { tags, summary: 'Add a contact' } })
    .patch('/:id/contacts/:contactId', async ({ actor, params, body }) => ({
      data: await runWrite(ctx, (tx) => updateContact(tx, actor, params.id, params.contactId, body)),
    }), { scope: 'thirdParties:update', params: ContactParams, body: ContactUpdate, response: Data(ContactView), detail: { tags, summary: 'Change a contact' } })
    .delete('/:id/contacts/:contactId', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => removeContact(tx, actor, params.id, params.contactId));
      set.status = 204;
      return null;
    }, { scope: 'thirdParties:update', params: ContactParams, detail: { tags, summary: 'Remove a contact', responses: deletedResponses } })
    .get('/:id/risks', async ({ actor, params }) => ({ data: await listLinkedRisks(ctx.db, actor, params.id) }), {
      scope: 'thirdParties:read', params: IdParam, response: Data(t.Array(LinkedRiskView)),
      detail: { tags, summary: 'Linked risks you may read (needs scope risks:read too)' },
    })
    .post('/:id/risks', async ({ actor, params, body, set }) => {
      await runWrite(ctx, (tx) => linkRisk(tx, actor, params.id, body));
      set.status = 201;
      return { data: null };
    }, {
      scope: 'thirdParties:update', params: IdParam, body: RiskLinkCreate, response: { 201: LinkCreated },
      detail: { tags, summary: 'Link a risk (needs scope risks:read too; 404 for a risk you cannot read)' },
    })
    .delete('/:id/risks/:riskId', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => unlinkRisk(tx, actor, params.id, params.riskId));
      set.status = 204;
      return null;
    }, { scope: 'thirdParties:update', params: RiskLinkParams, detail: { tags, summary: 'Unlink a risk (needs scope risks:read too)', responses: deletedResponses } })
    .get('/:id/sub-processors', async ({ actor, params }) => ({ data: await listSubProcessors(ctx.db, actor, params.id) }), {
      scope: 'thirdParties:read', params: IdParam, response: Data(t.Array(SubProcessorView)), detail: { tags, summary: "A third party's sub-processors" },
    })
    .post('/:id/sub-processors', async ({ actor, params, body, set }) => {
      await runWrite(ctx, (tx) => addSubProcessor(tx, actor, params.id, body));
      set.status = 201;
      return { data: null };
    }, {
      scope: 'thirdParties:update', params: IdParam, body: SubProcessorCreate, response: { 201: LinkCreated },
      detail: { tags, summary: 'Add a sub-processor (another third party; no self-links or cycles)' },
    })
    .delete('/:id/sub-processors/:subProcessorId', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => removeSubProcessor(tx, actor, params.id, params.subProcessorId));
      set.status = 204;
      return null;
    }, { scope: 'thirdParties:update', params: SubProcessorParams, detail: { tags, summary: 'Remove a sub-processor', responses: deletedResponses } });
