import { Elysia, t } from 'elysia';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { evidence as evidenceTable } from '../../../db/schema';
import { compliancePackages, controlTests, evidence, thirdParties } from '../../../db/schema';
import { CsrfField, Field, Select, formText, type Option } from '../../../views/components/form';
import { DataTable, Text, When } from '../../../views/components/table';
import { renderScreen } from '../../../views/layout';
import { runWrite, type AppContext } from '../../platform/context';
import { AppError, invalid } from '../../platform/errors';
import { schemaProblems } from '../../platform/form-input';
import { screenAuth } from '../../platform/screen-auth';
import { ownershipCondition } from '../../platform/ownership';
import { canTouch, levelOf, type Actor } from '../../platform/permissions';
import { OWNER_FIELDS, ownerColumn, recordPages } from '../../platform/record-pages';
import { escapeLike, type RecordView } from '../../platform/records';
import type { DbOrTx } from '../../../db/client';
import { fileResponse, listFiles, loadFile, removeFile, uploadFile } from './files';
import { evidencePackage } from './package';
import { EVIDENCE_KINDS, EVIDENCE_STATUSES, EvidenceCreate, EvidenceUpdate, LINKED_RECORD_TYPES, PackageQuery, type LinkedRecordType, type VerifyRunView } from './schema';
import {
  evidenceKind, evidenceLinkedTo, LINKED_TYPES, linkEvidence, listLinks, lockEvidence, unlinkEvidence, unlockEvidence,
} from './service';
import { getVerifyRun, latestVerifyRun, startVerifyRun } from './verify';
import { thirdPartyKind } from '../thirdParties/service';

type EvidenceView = RecordView<typeof evidenceTable> & { status: string; fileCount: number; linkCount: number };

const readable = (value: string) => value.replaceAll('_', ' ');
const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`);
const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: 'evidence' });

/** Third parties the viewer may read, for the vendor report picker. */
async function thirdPartyChoices(db: DbOrTx, viewer: Actor): Promise<Option[]> {
  if (levelOf(viewer, 'thirdParties:read') === null) return [];
  return db.select({ value: thirdParties.id, label: thirdParties.name }).from(thirdParties)
    .where(ownershipCondition(viewer, 'thirdParties:read', thirdParties.ownerId, thirdParties.ownerGroupId)).orderBy(asc(thirdParties.name)).limit(1000);
}

/** Records of one type the viewer may read (and so may link), by title, those containing `q` when given: at most `limit`. */
async function linkChoices(db: DbOrTx, viewer: Actor, recordType: LinkedRecordType, q = '', limit = 1000): Promise<Option[]> {
  const type = LINKED_TYPES[recordType];
  if (levelOf(viewer, `${type.module}:read`) === null) return [];
  const base = db.select({ value: sql<string>`${type.id}::text`, label: type.title }).from(type.from);
  const joined = type.join ? base.innerJoin(type.join.table, type.join.on) : base;
  const matching = q ? sql`${type.title} ilike ${`%${escapeLike(q)}%`}` : undefined;
  return joined.where(and(ownershipCondition(viewer, `${type.module}:read`, type.ownerId, type.ownerGroupId), matching))
    .orderBy(asc(type.title)).limit(limit);
}

const LINK_CHOICES = 200;

const typeLabel = (recordType: LinkedRecordType) => LINKED_TYPES[recordType].label;

function LockPanel({ view, viewer, csrfToken }: { view: EvidenceView; viewer: Actor; csrfToken: string }): JSX.Element {
  const canLock = !view.locked && canTouch(viewer, 'evidence:update', view);
  const canUnlock = view.locked && levelOf(viewer, 'evidence:update') === 'all';
  return (
    <section id="lock">
      {view.locked
        ? <p class="flash flash-info" safe>{`Locked ${String(view.lockedAt ?? '').slice(0, 16).replace('T', ' ')}: fields, files and links cannot change until unlocked.`}</p>
        : <p class="muted">Unlocked: fields, files and links can change. Lock the evidence once it is final.</p>}
      {canLock && (
        <form method="post" action={`/evidence/${view.id}/lock`} class="inline">
          <CsrfField token={csrfToken} /><button type="submit">Lock evidence</button>
        </form>
      )}
      {canUnlock && (
        <form method="post" action={`/evidence/${view.id}/unlock`} class="inline">
          <CsrfField token={csrfToken} /><button type="submit" class="danger">Unlock evidence</button>
        </form>
      )}
    </section>
  );
}

async function filesSection(ctx: AppContext, view: EvidenceView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const files = await listFiles(ctx.db, viewer, view.id);
  const canChange = !view.locked && canTouch(viewer, 'evidence:update', view);
  return (
    <section id="files">
      <h2>Files</h2>
      <DataTable
        rows={files}
        empty="No files yet."
        columns={[
          { header: 'File', cell: (f) => <a href={`/evidence/${view.id}/files/${f.id}`} safe>{f.name}</a> },
          { header: 'Size', cell: (f) => <Text value={bytes(f.size)} /> },
          { header: 'SHA-256', cell: (f) => <code class="hash" safe>{f.sha256}</code> },
          { header: 'Type', cell: (f) => <Text value={f.contentType} /> },
          { header: 'Uploaded', cell: (f) => <When value={f.createdAt} /> },
          ...(canChange ? [{
            header: '',
            cell: (f: { id: string; name: string }) => (
              <form method="post" action={`/evidence/${view.id}/files/${f.id}/remove`} class="inline">
                <CsrfField token={csrfToken} /><button type="submit" class="danger small" aria-label={`Remove ${f.name}`}>Remove</button>
              </form>
            ),
          }] : []),
        ]}
      />
      {canChange && (
        <form class="card form" id="evidence-upload" data-action={`/evidence/${view.id}/files`} data-csrf={csrfToken}
          data-max-bytes={String(ctx.config.EVIDENCE_MAX_FILE_MB * 1024 * 1024)}>
          <Field label={`Add files (up to ${ctx.config.EVIDENCE_MAX_FILE_MB} MB each)`} name="files">
            <input type="file" id="files" name="files" multiple required />
          </Field>
          <button type="submit">Upload</button>
          <ul class="upload-progress" aria-live="polite"></ul>
          <noscript><p class="muted">Uploading on this page needs JavaScript; without it use POST /api/v1/evidence/{view.id}/files.</p></noscript>
          <script src="/static/evidence-upload.js" defer></script>
        </form>
      )}
    </section>
  );
}

async function linksSection(ctx: AppContext, view: EvidenceView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const links = await listLinks(ctx.db, viewer, view.id);
  const canChange = !view.locked && canTouch(viewer, 'evidence:update', view);
  const types = LINKED_RECORD_TYPES.filter((type) => levelOf(viewer, `${LINKED_TYPES[type].module}:read`) !== null);
  return (
    <section id="links">
      <h2>Proves</h2>
      <DataTable
        rows={links}
        empty="Not linked to any record yet."
        columns={[
          { header: 'Record type', cell: (l) => <Text value={typeLabel(l.recordType)} /> },
          { header: 'Record', cell: (l) => (l.href ? <a href={l.href} safe>{l.title}</a> : <Text value={l.title} />) },
          { header: 'Linked', cell: (l) => <When value={l.linkedAt} /> },
          ...(canChange ? [{
            header: '',
            cell: (l: { recordType: string; recordId: string; title: string }) => (
              <form method="post" action={`/evidence/${view.id}/links/remove`} class="inline">
                <CsrfField token={csrfToken} />
                <input type="hidden" name="recordType" value={l.recordType} /><input type="hidden" name="recordId" value={l.recordId} />
                <button type="submit" class="small" aria-label={`Unlink ${l.title}`}>Unlink</button>
              </form>
            ),
          }] : []),
        ]}
      />
      {canChange && types.length > 0 && (
        <form method="post" action={`/evidence/${view.id}/links`} class="card form">
          <CsrfField token={csrfToken} />
          <Field label="Record type" name="recordType">
            <select id="recordType" name="recordType" required hx-get={`/evidence/${view.id}/link-choices`} hx-target="#link-choices" hx-trigger="change"
              hx-include="#link-q">
              <option value="">Choose…</option>
              {types.map((type) => <option value={type} safe>{typeLabel(type)}</option>)}
            </select>
          </Field>
          <Field label="Find by title" name="q" hint="Narrows the records offered below">
            <input type="search" id="link-q" name="q" maxlength="200" hx-get={`/evidence/${view.id}/link-choices`} hx-target="#link-choices"
              hx-trigger="keyup changed delay:300ms, search" hx-include="#recordType" />
          </Field>
          <div id="link-choices"><p class="muted">Choose a record type to pick the record.</p></div>
          <button type="submit">Link record</button>
        </form>
      )}
    </section>
  );
}

/** Evidence proving a record, on that record's page (controls, requirements, risks, policies, ...). */
export const evidenceSection = (recordTypes: readonly LinkedRecordType[]) =>
  async (ctx: AppContext, recordId: string, viewer: Actor): Promise<JSX.Element | null> => {
    if (levelOf(viewer, 'evidence:read') === null) return null;
    const ids = [recordId];
    if (recordTypes.includes('controlTest')) {
      const tests = await ctx.db.select({ id: controlTests.id }).from(controlTests).where(eq(controlTests.controlId, recordId));
      ids.push(...tests.map((test) => test.id));
    }
    const rows = await evidenceLinkedTo(ctx.db, viewer, recordTypes, ids);
    return (
      <section id="evidence">
        <h2>Evidence</h2>
        <DataTable
          rows={rows}
          empty="No evidence linked."
          columns={[
            { header: 'Evidence', cell: (e) => <a href={`/evidence/${e.id}`} safe>{e.title}</a> },
            { header: 'Kind', cell: (e) => <Text value={readable(e.kind)} /> },
            { header: 'Status', cell: (e) => <Text value={e.status} /> },
            { header: 'Valid until', cell: (e) => <Text value={e.validUntil ?? '—'} /> },
            { header: 'Locked', cell: (e) => <Text value={e.locked ? 'yes' : 'no'} /> },
          ]}
        />
      </section>
    );
  };

function VerifyProgress({ run }: { run: VerifyRunView | null }): JSX.Element {
  if (!run) return <div id="verify-run"><p class="muted">Files have not been verified yet.</p></div>;
  const running = run.status === 'running';
  return (
    <div id="verify-run" {...(running ? { 'hx-get': `/evidence/verify/${run.id}`, 'hx-trigger': 'every 2s', 'hx-swap': 'outerHTML' } : {})}>
      <p safe>{running
        ? `Checking… ${run.checked} of ${run.total} files.`
        : run.status === 'interrupted'
          ? `The run started ${run.startedAt.slice(0, 16).replace('T', ' ')} was interrupted after ${run.checked} of ${run.total} files. Start it again.`
          : `Checked ${run.checked} files on ${String(run.finishedAt).slice(0, 16).replace('T', ' ')}: ${run.problems.length ? `${run.problems.length} problem(s).` : 'every file matches its SHA-256.'}`}</p>
      {running && <progress max={String(Math.max(run.total, 1))} value={String(run.checked)}></progress>}
      {run.problems.length > 0 && (
        <DataTable
          rows={run.problems}
          columns={[
            { header: 'Evidence', cell: (p) => <a href={`/evidence/${p.evidenceId}`} safe>{p.evidenceTitle}</a> },
            { header: 'File', cell: (p) => <Text value={p.fileName} /> },
            { header: 'Problem', cell: (p) => <Text value={p.problem === 'missing' ? 'missing' : 'changed'} /> },
            { header: 'Detail', cell: (p) => <Text value={p.detail} /> },
          ]}
        />
      )}
    </div>
  );
}

async function packageChoices(db: DbOrTx, viewer: Actor) {
  const [packages, controlOptions, requirementOptions, evidenceOptions] = await Promise.all([
    levelOf(viewer, 'compliance:read') === null ? [] : db.select({ value: compliancePackages.id, label: compliancePackages.name }).from(compliancePackages)
      .where(ownershipCondition(viewer, 'compliance:read', compliancePackages.ownerId, compliancePackages.ownerGroupId)).orderBy(asc(compliancePackages.name)).limit(1000),
    linkChoices(db, viewer, 'control'),
    linkChoices(db, viewer, 'requirement'),
    db.select({ value: evidence.id, label: evidence.title }).from(evidence)
      .where(ownershipCondition(viewer, 'evidence:read', evidence.ownerId, evidence.ownerGroupId)).orderBy(asc(evidence.title)).limit(1000),
  ]);
  return { packages, controlOptions, requirementOptions, evidenceOptions };
}

function MultiSelect({ name, label, options, hint }: { name: string; label: string; options: Option[]; hint: string }): JSX.Element {
  return (
    <Field label={label} name={name} hint={hint}>
      <select id={name} name={name} multiple="multiple" size="6">
        {options.map((o) => <option value={o.value} safe>{o.label}</option>)}
      </select>
    </Field>
  );
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
    columns: [
      { header: 'Title', value: (e) => e.title, link: true },
      { header: 'Kind', value: (e) => readable(e.kind) },
      { header: 'Status', value: (e) => (e as EvidenceView).status },
      { header: 'Valid until', value: (e) => e.validUntil ?? '—' },
      { header: 'Files', value: (e) => (e as EvidenceView).fileCount },
      { header: 'Locked', value: (e) => (e.locked ? 'yes' : 'no') },
      ownerColumn(),
    ],
    sorts: [
      { value: '', label: 'Newest first' },
      { value: 'title', label: 'Title A–Z' },
      { value: 'validUntil', label: 'Expiring first' },
      { value: '-collectedOn', label: 'Recently collected' },
      { value: '-updatedAt', label: 'Recently updated' },
    ],
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
    return renderScreen(headers, shell('Verify files', viewer, csrfToken), (
      <>
        <p><a href="/evidence">← All evidence</a></p>
        <p>Re-reads every stored evidence file and compares it with the SHA-256 recorded when it was uploaded. Files that are
          missing or changed are listed by evidence and file name. The run continues in the background; this page follows it.</p>
        <form method="post" action="/evidence/verify">
          <CsrfField token={csrfToken} />
          <button type="submit" disabled={run?.status === 'running'}>Verify files</button>
        </form>
        <VerifyProgress run={run} />
      </>
    ));
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
    return renderScreen(headers, shell('Auditor package', viewer, csrfToken), (
      <>
        <p><a href="/evidence">← All evidence</a></p>
        <p>Choose what goes in: evidence linked to a package's requirements, to chosen requirements or controls (and their
          tests), chosen evidence, or evidence collected in a date range. Criteria of different kinds add up; a date range
          narrows them. Only evidence you may read goes in. The zip holds the files, a manifest.json with every file's
          SHA-256, size and the records it proves, and the Audit Log checkpoint of the export. Check it offline with
          <code>bun run evidence:verify package.zip</code>.</p>
        <form method="get" action="/evidence/package.zip" class="card form">
          <Field label="Compliance package" name="packageId" hint="Evidence linked to any of its requirements">
            <Select name="packageId" options={[{ value: '', label: '—' }, ...choices.packages]} />
          </Field>
          <MultiSelect name="analysisId" label="Requirements" options={choices.requirementOptions} hint="Ctrl or ⌘ to choose several" />
          <MultiSelect name="controlId" label="Controls" options={choices.controlOptions} hint="Evidence linked to the control or its tests" />
          <MultiSelect name="evidenceId" label="Evidence" options={choices.evidenceOptions} hint="These records themselves" />
          <Field label="Collected from" name="from" type="date" />
          <Field label="Collected to" name="to" type="date" />
          <button type="submit">Download package</button>
        </form>
      </>
    ));
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
    const recordType = LINKED_RECORD_TYPES.find((type) => type === query.recordType);
    if (!recordType) return <p class="muted">Choose a record type to pick the record.</p>;
    const q = (query.q ?? '').trim().slice(0, 200);
    const options = await linkChoices(ctx.db, viewer, recordType, q, LINK_CHOICES + 1);
    const label = typeLabel(recordType).toLowerCase();
    if (!options.length) return <p class="muted" safe>{q ? `No ${label} you may read has "${q}" in its title.` : `No ${label} you may read.`}</p>;
    return (
      <>
        <Field label={typeLabel(recordType)} name="recordId"><Select id="recordId" name="recordId" options={options.slice(0, LINK_CHOICES)} required /></Field>
        {options.length > LINK_CHOICES && <p class="muted" safe>{`The first ${LINK_CHOICES} by title; type part of the title to find others.`}</p>}
      </>
    );
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
  const recordType = LINKED_RECORD_TYPES.find((type) => type === formText(body, 'recordType'));
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
