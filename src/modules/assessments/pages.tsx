import { Elysia, t } from 'elysia';
import { AppError } from '../../platform/core/errors';
import { runWrite, type AppContext } from '../../platform/http/context';
import { attempt, formText, schemaProblems } from '../../platform/http/form-input';
import { linkBase } from '../../platform/http/public-address';
import { renderScreen } from '../../platform/http/screen';
import { screenAuth } from '../../platform/http/screen-auth';
import { fileResponseHeaders } from './files';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import { fieldErrors } from '../../../views/components/form';
import { readableChoices, recordType } from '../../platform/records/record-types';
import {
  REQUEST_SORTS, REQUEST_STATUSES, STATUS_LABELS, TEMPLATE_SORTS, TemplateCreate, type RequestCreate, type RequestListQuery, type RequestView, type ReviewInput,
  type TemplateListQuery, type TemplateView,
} from './schema';

const TEMPLATE_SORT_KEYS: readonly string[] = TEMPLATE_SORTS.flatMap((s) => [s, `-${s}`]);

/** The templates list's filters and sort as the address holds them; anything not recognised reads as not set. */
function templateFilters(query: Record<string, string | undefined>): TemplateFilters {
  return {
    q: (query.q ?? '').trim().slice(0, 200), ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '',
    sort: TEMPLATE_SORT_KEYS.includes(query.sort ?? '') ? query.sort! : '',
  };
}

const templateQuery = (f: TemplateFilters): Omit<TemplateListQuery, 'page' | 'pageSize'> =>
  ({ ...(f.q ? { q: f.q } : {}), ...(f.ownerId ? { ownerId: f.ownerId } : {}), ...(f.sort ? { sort: f.sort } : {}) });

const REQUEST_SORT_KEYS: readonly string[] = REQUEST_SORTS.flatMap((s) => [s, `-${s}`]);
const isRequestStatus = (value: string): value is (typeof REQUEST_STATUSES)[number] => (REQUEST_STATUSES as readonly string[]).includes(value);

/** The list's filters and sort as the address holds them; anything not recognised reads as not set, as on every list. */
function requestFilters(query: Record<string, string | undefined>): RequestFilters {
  return {
    q: (query.q ?? '').trim().slice(0, 200), status: isRequestStatus(query.status ?? '') ? query.status! : '',
    ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '', thirdPartyId: isUuid(query.thirdPartyId ?? '') ? query.thirdPartyId! : '', sort: REQUEST_SORT_KEYS.includes(query.sort ?? '') ? query.sort! : '',
  };
}

/** The filters as the service reads them (blanks left out). */
const requestQuery = (f: RequestFilters): Omit<RequestListQuery, 'page' | 'pageSize'> => ({
  ...(f.q ? { q: f.q } : {}), ...(isRequestStatus(f.status) ? { status: f.status } : {}), ...(f.ownerId ? { ownerId: f.ownerId } : {}),
  ...(f.thirdPartyId ? { thirdPartyId: f.thirdPartyId } : {}), ...(f.sort ? { sort: f.sort } : {}),
});
import type { StoredSection } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import { describeHistory } from '../../platform/records/history-format';
import {
  REQUEST_TYPE, TEMPLATE_TYPE, createTemplate, templateForChange, templateHistory, updateTemplate, requestHistory, acceptRequest, assessmentsOfThirdParty, createFindingFromAnswer, createRiskFromAnswer, fromAnswerChoices, getRequest, getTemplate, listRequests, listTemplates, remindRequest, requestFile, returnRequest,
  reviewRequest, revokeRequest, sendRequest, templateChoices, thirdPartyChoices,
} from './service';
import {
  NewRequestForm, REQUEST_CSV_COLUMNS, REQUESTS_PATH, RequestList, RequestPage, ThirdPartyAssessments, type RequestFilters, type RequestPageProps,
} from './views';
import { toCsv } from '../../platform/csv/write';
import { platformService } from '../../platform/http/installed';
import { isUuid } from '../../platform/core/uuid';
import { STARTER_TEXT, TEMPLATE_CSV_COLUMNS, TEMPLATES_PATH, TemplateEditor, TemplateList, TemplatePage, type TemplateEditorProps, type TemplateFilters } from './template-views';
import { parseTemplateText, placeOf, templateText, type TemplateLines } from './template-text';

const shell = (title: string, viewer: Actor, csrfToken: string, active = 'assessments', actions?: JSX.Element) => ({ title, viewer, csrfToken, active, actions });
const Id = t.Object({ id: t.String({ format: 'uuid' }) });
const FileParams = t.Object({ id: t.String({ format: 'uuid' }), fileId: t.String({ format: 'uuid' }) });
const DONE: Record<string, string> = {
  reviewed: 'Scores and comments saved.', accepted: 'The answers were accepted; the link is closed.', revoked: 'The link was revoked.',
};

const TEMPLATE_DONE: Record<string, (version: number) => string> = {
  created: () => 'The template was created as version 1. It can be sent now.',
  published: (v) => `Version ${v} was published. Questionnaires sent before keep the version they were sent with.`,
  saved: (v) => `Saved. The questions did not change, so this is still version ${v}.`,
};
const mayCreate = (viewer: Actor) => canTouch(viewer, 'assessments:create', { ownerId: viewer.userId, ownerGroupId: null });

const templateValues = (body: unknown) => ({ title: formText(body, 'title'), description: formText(body, 'description'), sections: formText(body, 'sections') });
type EditorProblem = NonNullable<TemplateEditorProps['problems']>[number];

/** A problem of the service or the schema as the editor shows it: on its field, a question's by the line it was written on. */
function editorProblems(problems: readonly FieldProblem[], lines: TemplateLines): EditorProblem[] {
  return problems.map((p) => {
    if (p.field === 'title' || p.field === 'description') return { field: p.field, message: p.message };
    const rest = /^sections\.\d+(?:\.questions\.\d+)?\.?(.*)$/.exec(p.field)?.[1] ?? '';
    const what = rest ? `${rest.replace(/\.(\d+)/g, (_, i: string) => ` ${Number(i) + 1}`).replace(/^showWhen/, 'condition').replace(/^key/, 'short name')} ` : '';
    return { field: 'sections', message: `${placeOf(p.field, lines)}: ${what}${p.message.replace(/\bthe key\b/g, 'the short name')}` };
  });
}

/** The form read and checked before any write: the text's problems by line, then the schema's (lengths, counts). */
function checkTemplate(values: ReturnType<typeof templateValues>): { sections: StoredSection[]; problems: EditorProblem[]; lines: TemplateLines } {
  const parsed = parseTemplateText(values.sections);
  const problems: EditorProblem[] = [
    ...(values.title.trim() ? [] : [{ field: 'title' as const, message: 'is required' }]),
    ...parsed.problems.map((p) => ({ field: 'sections' as const, message: p.message })),
  ];
  if (!problems.length) {
    problems.push(...editorProblems(schemaProblems(TemplateCreate, { title: values.title.trim(), description: values.description.trim(), sections: parsed.sections }), parsed.lines));
  }
  return { sections: parsed.sections, problems, lines: parsed.lines };
}

/** The organisation's screens: questionnaires sent (list, send, review) and templates (read). */
export const assessmentPages = (ctx: AppContext) => {
  const requestScreen = async (headers: Record<string, string | undefined>, viewer: Actor, csrfToken: string, id: string, extra: Omit<RequestPageProps, 'request' | 'csrfToken' | 'canReview'> = {}) => {
    const request = await getRequest(ctx.db, viewer, id);
    const findings = levelOf(viewer, 'audits:create') !== null;
    const risks = levelOf(viewer, 'risks:create') !== null;
    const fromAnswer = findings || risks ? { choices: await fromAnswerChoices(ctx.db, viewer), findings, risks } : null;
    const stored = (await requestHistory(ctx.db, viewer, id)).map((e) => ({ ...e, recordType: REQUEST_TYPE, recordId: id }));
    const history = await describeHistory(ctx.db, viewer, stored, {
      own: { recordType: REQUEST_TYPE, recordId: id },
      name: (_type, field, value) => (field === 'status' && typeof value === 'string' ? STATUS_LABELS[value as keyof typeof STATUS_LABELS] : undefined),
    });
    return renderScreen(headers, shell(request.title, viewer, csrfToken),
      <RequestPage request={request} csrfToken={csrfToken} canReview={canTouch(viewer, 'assessments:update', request)} fromAnswer={fromAnswer} history={history} {...extra} />);
  };
  /** Runs a decision; a conflict (not submitted any more) is shown on the page. */
  const decide = async (headers: Record<string, string | undefined>, viewer: Actor, csrfToken: string, id: string, set: { status?: number | string }, work: () => Promise<unknown>, done: string) => {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof AppError) || error.deniedReason || !['INVALID', 'CONFLICT'].includes(error.code)) throw error;
      set.status = error.status;
      return requestScreen(headers, viewer, csrfToken, id, { error: error.problems.length ? error.problems.map((p) => p.message).join('; ') : error.message });
    }
    return new Response(null, { status: 303, headers: { location: `/assessments/requests/${id}?done=${done}` } });
  };

  return new Elysia({ name: 'pages:assessments' })
    .use(screenAuth(ctx))
    .get(REQUESTS_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const filters = requestFilters(query);
      const pageNumber = /^\d{1,6}$/.test(query.page ?? '') ? Math.max(1, Number(query.page)) : 1;
      const [page, users, thirdParties] = await Promise.all([
        listRequests(ctx.db, viewer, { ...requestQuery(filters), page: pageNumber, pageSize: 25 }), platformService('listUsers')(ctx.db),
        readableChoices(ctx.db, viewer, recordType('thirdParty')),
      ]);
      const templates = <a class="button secondary" href="/assessments/templates">Templates</a>;
      const actions = canTouch(viewer, 'assessments:create', { ownerId: viewer.userId, ownerGroupId: null })
        ? <>{templates} <a class="button" href="/assessments/requests/new">Send a questionnaire</a></> : templates;
      return renderScreen(headers, shell('Questionnaires', viewer, csrfToken, 'assessments', actions),
        <RequestList page={page} filters={filters} owners={users.map((u) => ({ value: u.id, label: u.name }))} thirdParties={thirdParties} />);
    }, { page: 'assessments:read' })
    // The list as filtered and sorted on screen, as CSV in its columns and words, at most 5,000 questionnaires.
    .get(`${REQUESTS_PATH}.csv`, async ({ viewer, query, set }) => {
      const rows: RequestView[] = [];
      for (let n = 1; rows.length < 5_000; n++) {
        const chunk = await listRequests(ctx.db, viewer, { ...requestQuery(requestFilters(query)), page: n, pageSize: 200 });
        rows.push(...chunk.rows);
        if (n * 200 >= chunk.total) break;
      }
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="questionnaires-${new Date().toISOString().slice(0, 10)}.csv"`;
      return toCsv([REQUEST_CSV_COLUMNS.map((c) => c.header), ...rows.slice(0, 5_000).map((r) => REQUEST_CSV_COLUMNS.map((c) => c.text(r)))]);
    }, { page: 'assessments:read' })
    .get('/assessments/requests/new', async ({ viewer, csrfToken, headers, query }) => {
      const [templates, thirdParties] = await Promise.all([templateChoices(ctx.db, viewer), thirdPartyChoices(ctx.db, viewer)]);
      // Opened from a template's or a third party's page: that one is chosen already.
      const values = { templateId: query.templateId ?? '', thirdPartyId: query.thirdPartyId ?? '' };
      return renderScreen(headers, shell('Send a questionnaire', viewer, csrfToken), <NewRequestForm csrfToken={csrfToken} templates={templates} thirdParties={thirdParties} values={values} />);
    }, { page: 'assessments:create', query: t.Object({ templateId: t.Optional(t.String()), thirdPartyId: t.Optional(t.String()) }) })
    .post('/assessments/requests', async ({ viewer, csrfToken, headers, body, request, set }) => {
      const values = Object.fromEntries(['templateId', 'thirdPartyId', 'respondentName', 'respondentEmail', 'dueOn'].map((k) => [k, formText(body, k).trim()]));
      const input: RequestCreate = {
        templateId: values.templateId, thirdPartyId: values.thirdPartyId || null, respondentName: values.respondentName, respondentEmail: values.respondentEmail, dueOn: values.dueOn,
      };
      try {
        if (!/^[0-9a-f-]{36}$/.test(input.templateId)) throw new AppError('INVALID', 'invalid', [{ field: 'templateId', message: 'choose a template' }]);
        if (!/^\d{4}-\d{2}-\d{2}$/.test(input.dueOn)) throw new AppError('INVALID', 'invalid', [{ field: 'dueOn', message: 'must be a date written YYYY-MM-DD' }]);
        const sent = await runWrite(ctx, (tx) => sendRequest(tx, viewer, input, linkBase(ctx.config.PUBLIC_URL, request.url)));
        set.status = 201;
        return requestScreen(headers, viewer, csrfToken, sent.id, { link: sent, message: 'The questionnaire was sent.' });
      } catch (error) {
        if (!(error instanceof AppError) || error.deniedReason || error.code !== 'INVALID') throw error;
        set.status = 400;
        const [templates, thirdParties] = await Promise.all([templateChoices(ctx.db, viewer), thirdPartyChoices(ctx.db, viewer)]);
        return renderScreen(headers, shell('Send a questionnaire', viewer, csrfToken),
          <NewRequestForm csrfToken={csrfToken} templates={templates} thirdParties={thirdParties} values={values} errors={fieldErrors(error.problems)} error="Nothing was sent: please fix the fields marked below." />);
      }
    }, { page: 'assessments:create' })
    .get('/assessments/requests/:id', async ({ viewer, csrfToken, headers, params, query }) =>
      requestScreen(headers, viewer, csrfToken, params.id, { message: query.done ? DONE[query.done] ?? null : null }),
    { page: 'assessments:read', params: Id, query: t.Object({ done: t.Optional(t.String()) }) })
    .post('/assessments/requests/:id/review', async ({ viewer, csrfToken, headers, params, body, set }) => {
      const fields = body as Record<string, unknown>;
      const answers: ReviewInput['answers'] = Object.keys(fields).filter((k) => /^key\.\d+$/.test(k)).map((k) => {
        const i = k.slice(4);
        const score = formText(body, `score.${i}`).trim();
        return { key: formText(body, k), ...(score === '' ? { score: null } : { score: /^\d+$/.test(score) && Number(score) <= 100 ? Number(score) : -1 }), comment: formText(body, `comment.${i}`) };
      });
      if (answers.some((a) => a.score === -1)) {
        set.status = 400;
        return requestScreen(headers, viewer, csrfToken, params.id, { error: 'A score is a whole number from 0 to 100 (percent of the weight). Nothing was saved.' });
      }
      return decide(headers, viewer, csrfToken, params.id, set, () => runWrite(ctx, (tx) => reviewRequest(tx, viewer, params.id, { answers })), 'reviewed');
    }, { page: 'assessments:update', params: Id })
    .post('/assessments/requests/:id/accept', ({ viewer, csrfToken, headers, params, set }) =>
      decide(headers, viewer, csrfToken, params.id, set, () => runWrite(ctx, (tx) => acceptRequest(tx, viewer, params.id)), 'accepted'),
    { page: 'assessments:update', params: Id })
    .post('/assessments/requests/:id/revoke', ({ viewer, csrfToken, headers, params, set }) =>
      decide(headers, viewer, csrfToken, params.id, set, () => runWrite(ctx, (tx) => revokeRequest(tx, viewer, params.id)), 'revoked'),
    { page: 'assessments:update', params: Id })
    .post('/assessments/requests/:id/return', async ({ viewer, csrfToken, headers, params, body, set, request }) => {
      const message = formText(body, 'message').trim();
      if (!message) {
        set.status = 400;
        return requestScreen(headers, viewer, csrfToken, params.id, { error: 'Say what should change: the message goes to the respondent with the new link.' });
      }
      let link: { url: string; expiresAt: string } | null = null;
      const outcome = await decide(headers, viewer, csrfToken, params.id, set, async () => {
        link = await runWrite(ctx, (tx) => returnRequest(tx, viewer, params.id, { message }, linkBase(ctx.config.PUBLIC_URL, request.url)));
      }, 'returned');
      return link ? requestScreen(headers, viewer, csrfToken, params.id, { link, message: 'Returned for changes: the new link was mailed with your message.' }) : outcome;
    }, { page: 'assessments:update', params: Id })
    .post('/assessments/requests/:id/remind', async ({ viewer, csrfToken, headers, params, set, request }) => {
      let link: { url: string; expiresAt: string } | null = null;
      const outcome = await decide(headers, viewer, csrfToken, params.id, set, async () => {
        link = await runWrite(ctx, (tx) => remindRequest(tx, viewer, params.id, linkBase(ctx.config.PUBLIC_URL, request.url)));
      }, 'reminded');
      return link ? requestScreen(headers, viewer, csrfToken, params.id, { link, message: 'A reminder was mailed with a new link; the earlier one no longer works.' }) : outcome;
    }, { page: 'assessments:update', params: Id })
    .post('/assessments/requests/:id/findings', async ({ viewer, csrfToken, headers, params, body, set }) => {
      let created: { id: string } | null = null;
      const outcome = await decide(headers, viewer, csrfToken, params.id, set, async () => {
        created = await runWrite(ctx, (tx) => createFindingFromAnswer(tx, viewer, params.id, {
          key: formText(body, 'finding-key'), auditPlanId: formText(body, 'finding-plan'), title: formText(body, 'finding-title').trim(),
        }));
      }, 'finding');
      return created ? new Response(null, { status: 303, headers: { location: `/audits/findings/${(created as { id: string }).id}` } }) : outcome;
    }, { page: 'assessments:update', params: Id })
    .post('/assessments/requests/:id/risks', async ({ viewer, csrfToken, headers, params, body, set }) => {
      let created: { id: string } | null = null;
      const outcome = await decide(headers, viewer, csrfToken, params.id, set, async () => {
        created = await runWrite(ctx, (tx) => createRiskFromAnswer(tx, viewer, params.id, {
          key: formText(body, 'risk-key'), title: formText(body, 'risk-title').trim(), classificationId: formText(body, 'risk-classification'),
          likelihood: Number(formText(body, 'risk-likelihood')), impact: Number(formText(body, 'risk-impact')),
        }));
      }, 'risk');
      return created ? new Response(null, { status: 303, headers: { location: `/risks/${(created as { id: string }).id}` } }) : outcome;
    }, { page: 'assessments:update', params: Id })
    .get('/assessments/requests/:id/files/:fileId', async ({ viewer, params }) => {
      const file = await requestFile(ctx.db, viewer, params.id, params.fileId);
      return new Response(ctx.storage.read(file.storageKey), { headers: fileResponseHeaders(file) });
    }, { page: 'assessments:read', params: FileParams })
    .get(TEMPLATES_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const filters = templateFilters(query);
      const pageNumber = /^\d{1,6}$/.test(query.page ?? '') ? Math.max(1, Number(query.page)) : 1;
      const [page, users] = await Promise.all([
        listTemplates(ctx.db, viewer, { ...templateQuery(filters), page: pageNumber, pageSize: 25 }), platformService('listUsers')(ctx.db),
      ]);
      const canCreate = mayCreate(viewer);
      const actions = canCreate ? <a class="button" href="/assessments/templates/new">New template</a> : undefined;
      return renderScreen(headers, shell('Questionnaire templates', viewer, csrfToken, 'assessments', actions),
        <TemplateList page={page} canCreate={canCreate} filters={filters} owners={users.map((u) => ({ value: u.id, label: u.name }))} />);
    }, { page: 'assessments:read' })
    // The templates as filtered and sorted on screen, as CSV in the screen's columns and words.
    .get(`${TEMPLATES_PATH}.csv`, async ({ viewer, query, set }) => {
      const rows: TemplateView[] = [];
      for (let n = 1; rows.length < 5_000; n++) {
        const chunk = await listTemplates(ctx.db, viewer, { ...templateQuery(templateFilters(query)), page: n, pageSize: 200 });
        rows.push(...chunk.rows);
        if (n * 200 >= chunk.total) break;
      }
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="questionnaire-templates-${new Date().toISOString().slice(0, 10)}.csv"`;
      return toCsv([TEMPLATE_CSV_COLUMNS.map((c) => c.header), ...rows.slice(0, 5_000).map((t) => TEMPLATE_CSV_COLUMNS.map((c) => c.text(t)))]);
    }, { page: 'assessments:read' })
    .get('/assessments/templates/new', async ({ viewer, csrfToken, headers, query }) => {
      // "Start from a copy" of a template the viewer may read (a shipped one, to adapt): its title, description and questions.
      const from = query.from && /^[0-9a-f-]{36}$/.test(query.from) ? await getTemplate(ctx.db, viewer, query.from) : null;
      const values = from
        ? { title: `${from.title} (copy)`, description: from.description, sections: templateText(from.sections) }
        : { title: '', description: '', sections: STARTER_TEXT };
      return renderScreen(headers, shell('New questionnaire template', viewer, csrfToken), <TemplateEditor csrfToken={csrfToken} action="/assessments/templates" values={values} cancel="/assessments/templates" />);
    }, { page: 'assessments:create', query: t.Object({ from: t.Optional(t.String()) }) })
    .post('/assessments/templates', async ({ viewer, csrfToken, headers, body, set }) => {
      const values = templateValues(body);
      const checked = checkTemplate(values);
      const saved = checked.problems.length ? null : await attempt(() => runWrite(ctx, (tx) => createTemplate(tx, viewer, { title: values.title.trim(), description: values.description.trim(), sections: checked.sections })));
      if (saved?.ok) return new Response(null, { status: 303, headers: { location: `/assessments/templates/${saved.value.id}?done=created` } });
      set.status = saved ? saved.error.status : 400;
      const problems = saved ? editorProblems(saved.error.problems, checked.lines) : checked.problems;
      return renderScreen(headers, shell('New questionnaire template', viewer, csrfToken),
        <TemplateEditor csrfToken={csrfToken} action="/assessments/templates" values={values} problems={problems} error={saved && !problems.length ? saved.error.message : null} cancel="/assessments/templates" />);
    }, { page: 'assessments:create' })
    .get('/assessments/templates/:id', async ({ viewer, csrfToken, headers, params, query }) => {
      const template = await getTemplate(ctx.db, viewer, params.id);
      const canEdit = canTouch(viewer, 'assessments:update', template);
      const actions = <>
        {canEdit ? <a class="button secondary" href={`/assessments/templates/${template.id}/edit`}>Edit the questions</a> : ''}{' '}
        {mayCreate(viewer) ? <a class="button secondary" href={`/assessments/templates/new?from=${template.id}`}>Start a new template from a copy</a> : ''}{' '}
        {mayCreate(viewer) ? <a class="button" href={`/assessments/requests/new?templateId=${template.id}`}>Send a questionnaire</a> : ''}
      </>;
      const stored = (await templateHistory(ctx.db, viewer, params.id)).map((e) => ({ ...e, recordType: TEMPLATE_TYPE, recordId: params.id }));
      const history = await describeHistory(ctx.db, viewer, stored, { own: { recordType: TEMPLATE_TYPE, recordId: params.id } });
      return renderScreen(headers, shell(template.title, viewer, csrfToken, 'assessments', actions),
        <TemplatePage template={template} canEdit={canEdit} history={history} message={query.done ? TEMPLATE_DONE[query.done]?.(template.version) ?? null : null} />);
    }, { page: 'assessments:read', params: Id, query: t.Object({ done: t.Optional(t.String()) }) })
    .get('/assessments/templates/:id/edit', async ({ viewer, csrfToken, headers, params }) => {
      const template = await templateForChange(ctx.db, viewer, params.id);
      return renderScreen(headers, shell(`Edit ${template.title}`, viewer, csrfToken),
        <TemplateEditor csrfToken={csrfToken} action={`/assessments/templates/${template.id}`} version={template.version}
          values={{ title: template.title, description: template.description, sections: templateText(template.sections) }} cancel={`/assessments/templates/${template.id}`} />);
    }, { page: 'assessments:update', params: Id })
    .post('/assessments/templates/:id', async ({ viewer, csrfToken, headers, params, body, set }) => {
      const values = templateValues(body);
      const expectedVersion = Number(formText(body, 'expectedVersion'));
      const checked = checkTemplate(values);
      const saved = checked.problems.length ? null : await attempt(() => runWrite(ctx, async (tx) => {
        await updateTemplate(tx, viewer, params.id, {
          title: values.title.trim(), description: values.description.trim(), sections: checked.sections,
          ...(Number.isInteger(expectedVersion) && expectedVersion > 0 ? { expectedVersion } : {}),
        });
        return (await getTemplate(tx, viewer, params.id)).version;
      }));
      if (saved?.ok) {
        const done = saved.value === expectedVersion ? 'saved' : 'published';
        return new Response(null, { status: 303, headers: { location: `/assessments/templates/${params.id}?done=${done}` } });
      }
      set.status = saved ? saved.error.status : 400;
      const current = await templateForChange(ctx.db, viewer, params.id);
      const problems = saved ? editorProblems(saved.error.problems, checked.lines) : checked.problems;
      return renderScreen(headers, shell(`Edit ${current.title}`, viewer, csrfToken),
        <TemplateEditor csrfToken={csrfToken} action={`/assessments/templates/${params.id}`} version={expectedVersion > 0 ? expectedVersion : current.version} values={values}
          problems={problems} error={saved && !problems.length ? saved.error.message : null} cancel={`/assessments/templates/${params.id}`} />);
    }, { page: 'assessments:update', params: Id });
};

/** The section of a third party's page: its questionnaires and their scores over time. */
export async function thirdPartyAssessmentsSection(ctx: AppContext, thirdPartyId: string, viewer: Actor): Promise<JSX.Element | null> {
  const rows = await assessmentsOfThirdParty(ctx.db, viewer, thirdPartyId);
  return rows ? <ThirdPartyAssessments rows={rows} thirdPartyId={thirdPartyId} /> : null;
}

