import { recordSections } from '../../platform/records/record-types';
import { ANALYSIS_RECORD_TYPE } from './schema';
import { Elysia } from 'elysia';
import { renderScreen } from '../../platform/http/screen';
import { fieldErrors, type Option } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { ANALYSIS_STATUS_LABELS, AnalysisPage, PackageTreePage, ScoreCard, StatusChanged, type AssessValues, type TreeQuery } from './views/tree';
import { packageTreeView, rememberAllHeadings, rememberHeading, TREE_MAPPED, type TreeFilters, type TreeMapped } from './tree-service';
import { runWrite, type AppContext } from '../../platform/http/context';
import { notFound } from '../../platform/core/errors';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import { exceptionPages } from '../exceptions/pages';
import { deciderOf } from '../exceptions/views';
import { complianceParent } from '../exceptions/parents';
import { createException, listExceptions } from '../exceptions/service';
import { ANALYSIS_STATUSES, MAPPING_KIND_NAMES, type AnalysisStatus, type MappingKind } from './schema';
import {
  analysisHistoryShown, getAnalysis, itemScreen, linkRecord, mappingChoices, MAPPING_KINDS, mayUpdateAnalysis, unlinkRecord, updateAnalysis,
} from './analyses-service';
import { isUuid } from '../../platform/core/uuid';
import { soaCsv, statementOfApplicability } from './soa-service';
import { SoaPage } from './views/soa';
import { AsOfForm } from '../../platform/dashboard/views';
import { readAsOf } from '../../platform/dashboard/posture';
import { packageFirstEntry, packageScoreAt } from './posture';

const NAV = 'compliance';
const isMappingKind = (value: string): value is MappingKind => (MAPPING_KIND_NAMES as readonly string[]).includes(value);
const isStatus = (value: string): value is AnalysisStatus => (ANALYSIS_STATUSES as readonly string[]).includes(value);
const isMapped = (value: string): value is TreeMapped => (TREE_MAPPED as readonly string[]).includes(value);

/** The tree's filters from the address (or a form): unknown values are dropped, the search is cut at 200 characters. */
function treeQuery(source: unknown): TreeQuery {
  const status = formText(source, 'status');
  const mapped = formText(source, 'mapped');
  return {
    q: formText(source, 'q').slice(0, 200), status: isStatus(status) ? status : '', mapped: isMapped(mapped) ? mapped : '',
    text: formText(source, 'text') === 'shown' ? 'shown' : '',
  };
}

const treeFilters = (query: TreeQuery): TreeFilters => ({
  q: query.q || undefined, status: isStatus(query.status) ? query.status : undefined, mapped: isMapped(query.mapped) ? query.mapped : undefined,
  text: query.text === 'shown',
});

interface Extra {
  done?: string;
  error?: string;
  exceptionError?: string;
  exceptionErrors?: Record<string, string>;
  exceptionValues?: { title: string; description: string; expiresAt: string };
  assessValues?: AssessValues;
  assessErrors?: Record<string, string>;
}

/**
 * Compliance screens: a package's requirement tree with each analysis's status editable in place, an analysis with
 * its assessment form and mapping pickers, its exceptions (requested here, decided here or in the exceptions list).
 */
export function analysesPages(ctx: AppContext) {
  const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: NAV });

  const analysisScreen = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, id: string, extra: Extra = {}) => {
    const analysis = await getAnalysis(ctx.db, viewer, id);
    const [choiceLists, exceptions, history, canUpdate, sections] = await Promise.all([
      Promise.all(MAPPING_KIND_NAMES.map(async (kind) => (levelOf(viewer, `${MAPPING_KINDS[kind].module}:read`) === null ? null : mappingChoices(ctx.db, viewer, id, kind)))),
      listExceptions(ctx.db, complianceParent, viewer, { parentId: id, page: 1, pageSize: 200, sort: 'expiresAt' }),
      analysisHistoryShown(ctx.db, viewer, id),
      mayUpdateAnalysis(ctx.db, viewer, id),
      recordSections(ctx, ANALYSIS_RECORD_TYPE, id, viewer, csrfToken),
    ]);
    const choices = Object.fromEntries(MAPPING_KIND_NAMES.map((kind, i) => [kind, choiceLists[i]])) as Record<MappingKind, Option[] | null>;
    return renderScreen(headers, shell(`${analysis.item.code} ${analysis.item.name}`, viewer, csrfToken),
      <AnalysisPage analysis={analysis} canUpdate={canUpdate} canReview={levelOf(viewer, 'compliance:review') !== null} decider={deciderOf(viewer)} choices={choices}
        exceptions={exceptions.rows} history={history} csrfToken={csrfToken} sections={<>{sections}</>} {...extra} />);
  };

  return new Elysia({ name: 'pages:compliance-analyses' })
    .use(screenAuth(ctx))
    .use(exceptionPages(ctx, complianceParent, '/compliance/analyses', NAV))
    .get('/compliance/packages/:id', async ({ viewer, csrfToken, headers, params, query, set }) => {
      const filters = treeQuery(query);
      const tree = await packageTreeView(ctx.db, viewer, params.id, treeFilters(filters));
      // The score at a past date, from History; a day after today or before the package's import is refused in words.
      const typed = formText(query, 'asOf');
      const asOf = typed ? readAsOf(typed, await packageFirstEntry(ctx.db, params.id)) : { day: null };
      if ('problem' in asOf) set.status = 400;
      const day = 'day' in asOf ? asOf.day : null;
      const pastScore = (
        <>
          <AsOfForm action={`/compliance/packages/${params.id}#score-past`} typed={'problem' in asOf ? asOf.typed : day ?? ''}
            error={'problem' in asOf ? asOf.problem : undefined} hint="A day from the package's import to today; the score as it stood at the end of that day (UTC)." />
          {day && <ScoreCard score={await packageScoreAt(ctx.db, viewer, params.id, day)} asOf={day} />}
        </>
      );
      return renderScreen(headers, shell(tree.name, viewer, csrfToken), <PackageTreePage tree={tree} query={filters} csrfToken={csrfToken} pastScore={pastScore} />);
    }, { page: 'compliance:read' })
    // The viewer opened or collapsed a heading (sent by static/app.js on the section's toggle; nothing to swap).
    .post('/compliance/packages/:id/headings/:itemId', async ({ viewer, params, body, set }) => {
      await runWrite(ctx, (tx) => rememberHeading(tx, viewer, params.id, params.itemId, formText(body, 'open') === 'true'));
      set.status = 204;
      return '';
    }, { page: 'compliance:read' })
    // Expand all / Collapse all: plain forms, back to the tree with the same filters.
    .post('/compliance/packages/:id/headings', async ({ viewer, params, body, redirect }) => {
      await runWrite(ctx, (tx) => rememberAllHeadings(tx, viewer, params.id, formText(body, 'open') === 'all'));
      const kept = new URLSearchParams(Object.entries(treeQuery(body)).filter(([, value]) => value !== '')).toString();
      return redirect(`/compliance/packages/${params.id}${kept ? `?${kept}` : ''}`, 303);
    }, { page: 'compliance:read' })
    // An inline status change: the row, and out of band the score and the progress of the headings above it.
    .patch('/compliance/analyses/:id', async ({ viewer, params, body }) => {
      // The tree's select sends the status's label (its options carry no value, to keep the page small); a key is taken too.
      const sent = formText(body, 'status');
      const status = isStatus(sent) ? sent : ANALYSIS_STATUSES.find((key) => ANALYSIS_STATUS_LABELS[key] === sent);
      if (!status) return new Response('Choose a status', { status: 400 });
      await runWrite(ctx, (tx) => updateAnalysis(tx, viewer, params.id, { status }));
      const analysis = await getAnalysis(ctx.db, viewer, params.id);
      const tree = await packageTreeView(ctx.db, viewer, analysis.packageId, { text: formText(body, 'text') === 'shown' });
      const row = tree.rows.find((r) => r.analysis?.id === params.id);
      if (!row) throw notFound(`Analysis ${params.id}`);
      return <StatusChanged row={row} tree={tree} />;
    }, { page: 'compliance:update' })
    .get('/compliance/items/:id', async ({ viewer, params, redirect }) => redirect(await itemScreen(ctx.db, viewer, params.id), 303), { page: 'compliance:read' })
    .get('/compliance/analyses/:id', async ({ viewer, csrfToken, headers, params, query }) => {
      if (!isUuid(params.id)) throw notFound(`Analysis ${params.id}`);
      return analysisScreen(viewer, csrfToken, headers, params.id, { done: query.done });
    }, { page: 'compliance:read' })
    .post('/compliance/analyses/:id', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const status = formText(body, 'status');
      const applicable = formText(body, 'applicable');
      const values: AssessValues = {
        status, notes: formText(body, 'notes').replace(/\s+$/, ''), applicable: applicable === 'no' ? 'no' : 'yes', justification: formText(body, 'justification'),
      };
      const result = await attempt(() => runWrite(ctx, (tx) => updateAnalysis(tx, viewer, params.id, {
        ...(isStatus(status) ? { status } : {}), notes: values.notes,
        // A form without the field (an older page) leaves applicability as it is.
        ...(applicable === 'yes' || applicable === 'no' ? { applicable: applicable === 'yes', justification: values.justification } : {}),
      })));
      if (result.ok) return redirect(`/compliance/analyses/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      const errors = fieldErrors(result.error.problems);
      return analysisScreen(viewer, csrfToken, headers, params.id, {
        error: result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message, assessValues: values, assessErrors: errors,
      });
    }, { page: 'compliance:update' })
    .get('/compliance/packages/:id/soa', async ({ viewer, csrfToken, headers, params }) => {
      const soa = await statementOfApplicability(ctx.db, viewer, params.id);
      return renderScreen(headers, shell(`Statement of Applicability: ${soa.name}`, viewer, csrfToken), <SoaPage name={soa.name} packageId={soa.packageId} rows={soa.rows} />);
    }, { page: 'compliance:read' })
    .get('/compliance/packages/:id/soa.csv', async ({ viewer, params, set }) => {
      const soa = await statementOfApplicability(ctx.db, viewer, params.id);
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="statement-of-applicability-${new Date().toISOString().slice(0, 10)}.csv"`;
      return soaCsv(soa.rows, (status) => ANALYSIS_STATUS_LABELS[status] ?? status);
    }, { page: 'compliance:read' })
    .post('/compliance/analyses/:id/exceptions', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = { title: formText(body, 'exceptionTitle'), description: formText(body, 'exceptionDescription'), expiresAt: formText(body, 'expiresAt') };
      const result = await attempt(() => runWrite(ctx, (tx) => createException(tx, complianceParent, viewer, { parentId: params.id, ...values })));
      if (result.ok) return redirect(`/compliance/analyses/${params.id}?done=requested#exceptions`, 303);
      set.status = result.error.status;
      return analysisScreen(viewer, csrfToken, headers, params.id, {
        exceptionError: result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message,
        exceptionErrors: fieldErrors(result.error.problems), exceptionValues: values,
      });
    }, { page: 'compliance:update' })
    .post('/compliance/analyses/:id/:kind', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      if (!isMappingKind(params.kind)) throw notFound(`Mapping kind ${params.kind}`);
      const recordId = formText(body, 'id');
      const kind = params.kind;
      if (!recordId) {
        set.status = 400;
        return analysisScreen(viewer, csrfToken, headers, params.id, { error: `Choose a ${MAPPING_KINDS[kind].label.toLowerCase()} to map.` });
      }
      const result = await attempt(() => runWrite(ctx, (tx) => linkRecord(tx, viewer, params.id, kind, recordId)));
      if (result.ok) return redirect(`/compliance/analyses/${params.id}?done=linked#mappings-${kind}`, 303);
      set.status = result.error.status;
      return analysisScreen(viewer, csrfToken, headers, params.id, { error: result.error.message });
    }, { page: 'compliance:update' })
    .post('/compliance/analyses/:id/:kind/:recordId/remove', async ({ viewer, params, redirect }) => {
      if (!isMappingKind(params.kind)) throw notFound(`Mapping kind ${params.kind}`);
      const kind = params.kind;
      await runWrite(ctx, (tx) => unlinkRecord(tx, viewer, params.id, kind, params.recordId));
      return redirect(`/compliance/analyses/${params.id}?done=unlinked#mappings-${kind}`, 303);
    }, { page: 'compliance:update' });
}
