import { Elysia, t } from 'elysia';
import { and, asc, eq, sql } from 'drizzle-orm';
import { compliancePackages, controlTests, evidence, thirdParties } from '../../../db/schema';
import { type Option } from '../../../views/components/form';
import { formText } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import { runWrite, type AppContext } from '../../platform/http/context';
import { AppError, invalid } from '../../platform/core/errors';
import { schemaProblems } from '../../platform/http/form-input';
import { screenAuth } from '../../platform/http/screen-auth';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import { OWNER_FIELDS, ownerColumn, recordPages, type ListColumn } from '../../platform/record-screens/record-pages';
import type { RecordView } from '../../platform/records/records';
import { readableChoices, readableTypes, recordType } from '../../platform/records/record-types';
import type { DbOrTx } from '../../../db/client';
import { fileResponse, listFiles, loadFile, removeFile, uploadFile } from './files';
import { evidencePackage } from './package';
import { EVIDENCE_KINDS, EVIDENCE_STATUSES, EvidenceCreate, EvidenceUpdate, linkableTypes, PackageQuery } from './schema';
import {
  evidenceKind, linkEvidence, listLinks, lockEvidence, unlinkEvidence, unlockEvidence,
} from './service';
import { getVerifyRun, latestVerifyRun, startVerifyRun } from './verify';
import { thirdPartyKind } from '../thirdParties/service';
import {
  FilesSection, LinkChoices, LinksSection, LockPanel, PackagePage, readable, VerifyPage, VerifyProgress, type EvidenceView,
} from './views';

/** The Evidence list's columns, also its CSV export's and the evidence status report's. */
export const evidenceColumns: ListColumn<RecordView<typeof evidence>>[] = [
  { header: 'Title', value: (e) => e.title, link: true, sort: 'title' },
  { header: 'Kind', value: (e) => readable(e.kind), sort: 'kind' },
  { header: 'Status', value: (e) => readable((e as EvidenceView).status), sort: 'status' },
  { header: 'Valid until', value: (e) => e.validUntil ?? '—', sort: 'validUntil' },
  { header: 'Files', value: (e) => (e as EvidenceView).fileCount, sort: 'fileCount' },
  { header: 'Locked', value: (e) => (e.locked ? 'yes' : 'no'), sort: 'locked' },
  ownerColumn(),
];

const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: 'evidence' });

/** Third parties the viewer may read, for the vendor report picker. */
async function thirdPartyChoices(db: DbOrTx, viewer: Actor): Promise<Option[]> {
  if (levelOf(viewer, 'thirdParties:read') === null) return [];
  return db.select({ value: thirdParties.id, label: thirdParties.name }).from(thirdParties)
    .where(ownershipCondition(viewer, 'thirdParties:read', thirdParties.ownerId, thirdParties.ownerGroupId)).orderBy(asc(thirdParties.name)).limit(1000);
}

const LINK_CHOICES = 200;

async function filesSection(ctx: AppContext, view: EvidenceView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const files = await listFiles(ctx.db, viewer, view.id);
  const canChange = !view.locked && canTouch(viewer, 'evidence:update', view);
  return <FilesSection view={view} files={files} canChange={canChange} csrfToken={csrfToken} maxFileMb={ctx.config.EVIDENCE_MAX_FILE_MB} />;
}

async function linksSection(ctx: AppContext, view: EvidenceView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const links = await listLinks(ctx.db, viewer, view.id);
  const canChange = !view.locked && canTouch(viewer, 'evidence:update', view);
  const types = readableTypes(viewer, linkableTypes());
  return <LinksSection view={view} links={links} canChange={canChange} types={types} csrfToken={csrfToken} />;
}

async function packageChoices(db: DbOrTx, viewer: Actor) {
  const [packages, controlOptions, requirementOptions, evidenceOptions] = await Promise.all([
    levelOf(viewer, 'compliance:read') === null ? [] : db.select({ value: compliancePackages.id, label: compliancePackages.name }).from(compliancePackages)
      .where(ownershipCondition(viewer, 'compliance:read', compliancePackages.ownerId, compliancePackages.ownerGroupId)).orderBy(asc(compliancePackages.name)).limit(1000),
    readableChoices(db, viewer, recordType('control')),
    readableChoices(db, viewer, recordType('requirement')),
    db.select({ value: evidence.id, label: evidence.title }).from(evidence)
      .where(ownershipCondition(viewer, 'evidence:read', evidence.ownerId, evidence.ownerGroupId)).orderBy(asc(evidence.title)).limit(1000),
  ]);
  return { packages, controlOptions, requirementOptions, evidenceOptions };
}

export const evidencePages = (ctx: AppContext) => new Elysia({ name: 'pages:evidence-tools' })
  .use(evidenceToolPages(ctx))
  .use(recordPages(ctx, evidenceKind, {
    path: '/evidence',
    title: 'Evidence',
    singular: 'Evidence',
    navKey: 'evidence',
    Create: EvidenceCreate,
    Update: EvidenceUpdate,
    statuses: EVIDENCE_STATUSES,
    filters: [
      { name: 'kind', label: 'Kind', options: EVIDENCE_KINDS.map((k) => ({ value: k, label: readable(k) })) },
      { name: 'locked', label: 'Locked', options: [{ value: 'true', label: 'Locked' }, { value: 'false', label: 'Unlocked' }] },
    ],
    listActions: (viewer) => (
      <>
        <a class="button secondary" href="/evidence/package">Auditor package</a>
        {levelOf(viewer, 'evidence:read') === 'all' && <a class="button secondary" href="/evidence/verify">Verify files</a>}
      </>
    ),
    fields: [
      { name: 'title', label: 'Title', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'textarea' },
      { name: 'kind', label: 'Kind', kind: 'select', options: EVIDENCE_KINDS, hint: 'Blank gives evidence; a vendor report names its third party' },
      { name: 'thirdPartyId', label: 'Third party', kind: 'reference', options: (viewer) => thirdPartyChoices(ctx.db, viewer), link: thirdPartyKind },
      { name: 'collectedOn', label: 'Collected on', kind: 'date', hint: 'Blank gives today' },
      { name: 'validUntil', label: 'Valid until', kind: 'date', hint: 'Blank: does not expire. Within 30 days it shows as expiring.' },
      ...OWNER_FIELDS,
    ],
    columns: evidenceColumns,
    sections: async (view, viewer, csrfToken) => {
      const v = view as EvidenceView;
      return (
        <>
          <LockPanel view={v} viewer={viewer} csrfToken={csrfToken} />
          {await filesSection(ctx, v, viewer, csrfToken)}
          {await linksSection(ctx, v, viewer, csrfToken)}
        </>
      );
    },
  }));

/** Answers a screen action: back to the evidence page with a notice, or the refusal as a page of its own. */
const backTo = (id: string, done: string) => `/evidence/${id}?done=${done}`;

/** Lock, links, files, Verify files and the package screen: registered before the record pages' /evidence/:id. */
const evidenceToolPages = (ctx: AppContext) => new Elysia({ name: 'pages:evidence' })
  .use(screenAuth(ctx))
  .get('/evidence/verify', async ({ viewer, csrfToken, headers }) => {
    const run = await latestVerifyRun(ctx.db, viewer);
    return renderScreen(headers, shell('Verify files', viewer, csrfToken), <VerifyPage run={run} csrfToken={csrfToken} />);
  }, { page: 'evidence:read' })
  .post('/evidence/verify', async ({ viewer, redirect }) => {
    await startVerifyRun(ctx, viewer);
    return redirect('/evidence/verify', 303);
  }, { page: 'evidence:read' })
  .get('/evidence/verify/:runId', async ({ viewer, params }) => <VerifyProgress run={await getVerifyRun(ctx.db, viewer, params.runId)} />, {
    page: 'evidence:read', params: t.Object({ runId: t.String() }),
  })
  .get('/evidence/package', async ({ viewer, csrfToken, headers }) => {
    const choices = await packageChoices(ctx.db, viewer);
    return renderScreen(headers, shell('Auditor package', viewer, csrfToken), <PackagePage choices={choices} />);
  }, { page: 'evidence:read' })
  .get('/evidence/package.zip', async ({ viewer, request }) => {
    const query = packageQueryOf(new URL(request.url).searchParams);
    const { stream, fileName } = await evidencePackage(ctx, viewer, query);
    return new Response(stream, { headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${fileName}"`, 'cache-control': 'no-store' } });
  }, { page: 'evidence:read' })
  .post('/evidence/:id/lock', async ({ viewer, params, redirect }) => {
    await runWrite(ctx, (tx) => lockEvidence(tx, viewer, params.id));
    return redirect(backTo(params.id, 'updated'), 303);
  }, { page: 'evidence:update' })
  .post('/evidence/:id/unlock', async ({ viewer, params, redirect }) => {
    await runWrite(ctx, (tx) => unlockEvidence(tx, viewer, params.id));
    return redirect(backTo(params.id, 'updated'), 303);
  }, { page: 'evidence:update' })
  .get('/evidence/:id/link-choices', async ({ viewer, query }) => {
    const type = linkableTypes().find((candidate) => candidate.kind === query.recordType);
    if (!type) return <LinkChoices />;
    const q = (query.q ?? '').trim().slice(0, 200);
    const options = await readableChoices(ctx.db, viewer, type, q, LINK_CHOICES + 1);
    return <LinkChoices type={type} q={q} options={options} limit={LINK_CHOICES} />;
  }, { page: 'evidence:read', query: t.Object({ recordType: t.Optional(t.String()), q: t.Optional(t.String()) }) })
  .post('/evidence/:id/links', async ({ viewer, params, body, redirect }) => {
    const input = linkInputOf(body);
    await runWrite(ctx, (tx) => linkEvidence(tx, viewer, params.id, input));
    return redirect(backTo(params.id, 'updated'), 303);
  }, { page: 'evidence:update' })
  .post('/evidence/:id/links/remove', async ({ viewer, params, body, redirect }) => {
    const input = linkInputOf(body);
    await runWrite(ctx, (tx) => unlinkEvidence(tx, viewer, params.id, input));
    return redirect(backTo(params.id, 'updated'), 303);
  }, { page: 'evidence:update' })
  .post('/evidence/:id/files', async ({ viewer, params, query, request, headers }) => {
    // Called by the upload script: answers JSON, the refusal's message included, for it to show beside the file.
    try {
      const length = headers['content-length'];
      const file = await uploadFile(ctx, viewer, params.id, query.name ?? '', request.body, length && /^\d+$/.test(length) ? Number(length) : undefined);
      return Response.json({ data: file }, { status: 201 });
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return Response.json({ error: error.message }, { status: error.status });
      throw error;
    }
  }, { page: 'evidence:update', parse: 'none', query: t.Object({ name: t.Optional(t.String()) }) })
  .get('/evidence/:id/files/:fileId', async ({ viewer, params, headers }) =>
    fileResponse(ctx, await loadFile(ctx.db, viewer, params.id, params.fileId), headers.range ?? null), { page: 'evidence:read' })
  .post('/evidence/:id/files/:fileId/remove', async ({ viewer, params, redirect }) => {
    await removeFile(ctx, viewer, params.id, params.fileId);
    return redirect(backTo(params.id, 'updated'), 303);
  }, { page: 'evidence:update' });

function linkInputOf(body: unknown) {
  const recordType = linkableTypes().find((type) => type.kind === formText(body, 'recordType'))?.kind;
  const recordId = formText(body, 'recordId');
  const problems = [
    ...(recordType ? [] : [{ field: 'recordType', message: 'choose a record type' }]),
    ...(/^[0-9a-f-]{36}$/i.test(recordId) ? [] : [{ field: 'recordId', message: 'choose a record' }]),
  ];
  if (problems.length) throw invalid(problems);
  return { recordType: recordType!, recordId };
}

/** The package form's query (repeated fields for the multi-selects, blanks left out), checked by the REST schema. */
function packageQueryOf(params: URLSearchParams): PackageQuery {
  const list = (name: string) => params.getAll(name).filter((v) => v !== '');
  const one = (name: string) => params.get(name) || undefined;
  const query = {
    ...(one('packageId') ? { packageId: one('packageId') } : {}),
    ...(list('analysisId').length ? { analysisId: list('analysisId') } : {}),
    ...(list('controlId').length ? { controlId: list('controlId') } : {}),
    ...(list('evidenceId').length ? { evidenceId: list('evidenceId') } : {}),
    ...(one('from') ? { from: one('from') } : {}),
    ...(one('to') ? { to: one('to') } : {}),
  };
  const problems = schemaProblems(PackageQuery, query);
  if (problems.length) throw invalid(problems);
  return query as PackageQuery;
}
