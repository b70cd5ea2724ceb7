import type { evidence as evidenceTable } from '../../../db/schema';
import { valueLabel } from '../../platform/core/value-labels';
import { CsrfField, Field, Select, type Option } from '../../../views/components/form';
import { DataTable, Text, When } from '../../../views/components/table';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import type { RecordView } from '../../platform/records/records';
import { BareLayout } from '../../../views/layout';
import { UPLOAD_LINK, type VerifyRunView } from './schema';
import type { listFiles } from './files';
import type { listLinks } from './service';
import { findRecordType, type RecordTypeDeclaration } from '../../platform/records/record-types';

export type EvidenceView = RecordView<typeof evidenceTable> & { status: string; fileCount: number; linkCount: number };

/** A stored value in words, from the one labels table ('in_remediation' reads 'In remediation'). */
export const readable = valueLabel;

export const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`);

const typeLabel = (kind: string) => findRecordType(kind)?.label ?? kind;

export function LockPanel({ view, viewer, csrfToken }: { view: EvidenceView; viewer: Actor; csrfToken: string }): JSX.Element {
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

export function VerifyProgress({ run }: { run: VerifyRunView | null }): JSX.Element {
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

function MultiSelect({ name, label, options, hint }: { name: string; label: string; options: Option[]; hint: string }): JSX.Element {
  return (
    <Field label={label} name={name} hint={hint}>
      <select id={name} name={name} multiple="multiple" size="6">
        {options.map((o) => <option value={o.value} safe>{o.label}</option>)}
      </select>
    </Field>
  );
}

/** The evidence's files with their SHA-256, and the upload form while it may change. */
export function FilesSection({ view, files, canChange, csrfToken, maxFileMb }: {
  view: EvidenceView; files: Awaited<ReturnType<typeof listFiles>>; canChange: boolean; csrfToken: string; maxFileMb: number;
}): JSX.Element {
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
          data-max-bytes={String(maxFileMb * 1024 * 1024)}>
          <Field label={`Add files (up to ${maxFileMb} MB each)`} name="files">
            <input type="file" id="f-files" name="files" multiple required />
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

/** The records the evidence proves, and the link picker (record type, then a title search) while it may change. */
export function LinksSection({ view, links, canChange, types, csrfToken }: {
  view: EvidenceView; links: Awaited<ReturnType<typeof listLinks>>; canChange: boolean; types: RecordTypeDeclaration[]; csrfToken: string;
}): JSX.Element {
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
            <select id="f-recordType" name="recordType" required hx-get={`/evidence/${view.id}/link-choices`} hx-target="#link-choices" hx-trigger="change"
              hx-include="#f-q">
              <option value="">Choose…</option>
              {types.map((type) => <option value={type.kind} safe>{type.label}</option>)}
            </select>
          </Field>
          <Field label="Find by title" name="q" hint="Narrows the records offered below">
            <input type="search" id="f-q" name="q" maxlength="200" aria-describedby="f-q-hint" hx-get={`/evidence/${view.id}/link-choices`}
              hx-target="#link-choices" hx-trigger="keyup changed delay:300ms, search" hx-include="#f-recordType" />
          </Field>
          <div id="link-choices"><p class="muted">Choose a record type to pick the record.</p></div>
          <button type="submit">Link record</button>
        </form>
      )}
    </section>
  );
}

/** Verify files: start a run and follow it. */
export function VerifyPage({ run, csrfToken }: { run: VerifyRunView | null; csrfToken: string }): JSX.Element {
  return (
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
  );
}

/** What the auditor package form offers: the records the viewer may read. */
export interface PackageChoices {
  packages: Option[];
  controlOptions: Option[];
  requirementOptions: Option[];
  evidenceOptions: Option[];
}

/** The auditor package form: what goes in the zip. */
export function PackagePage({ choices }: { choices: PackageChoices }): JSX.Element {
  return (
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
  );
}

/** The record picker of the link form: the records of the chosen type matching `q`, the first `limit` of them. */
export function LinkChoices({ type, q = '', options = [], limit = 0 }: {
  type?: RecordTypeDeclaration; q?: string; options?: Option[]; limit?: number;
}): JSX.Element {
  if (!type) return <p class="muted">Choose a record type to pick the record.</p>;
  const label = type.label.toLowerCase();
  if (!options.length) return <p class="muted" safe>{q ? `No ${label} you may read has "${q}" in its title.` : `No ${label} you may read.`}</p>;
  return (
    <>
      <Field label={type.label} name="recordId"><Select id="recordId" name="recordId" options={options.slice(0, limit)} required /></Field>
      {options.length > limit && <p class="muted" safe>{`The first ${limit} by title; type part of the title to find others.`}</p>}
    </>
  );
}

/** The upload link's page (no sign-in: the secret in the address is the credential). */
export function UploadPage({ secret, link }: { secret: string; link: { filesUsed: number; expiresAt: Date } }): JSX.Element {
  return (
    <BareLayout title="Upload evidence">
      <>
        <h1>Upload evidence</h1>
        <p safe>{`Up to ${UPLOAD_LINK.files - link.filesUsed} more file(s) of at most ${UPLOAD_LINK.fileBytes / 1024 / 1024} MB each, until ${link.expiresAt.toISOString().slice(11, 16)} UTC. Each file is sealed with its SHA-256.`}</p>
        <form class="card form" id="evidence-upload" data-action={`/api/upload/${secret}/files`} data-csrf="" data-max-bytes={String(UPLOAD_LINK.fileBytes)}>
          <div class="field"><label for="files">Files</label><input type="file" id="f-files" name="files" multiple required /></div>
          <button type="submit">Upload</button>
          <ul class="upload-progress" aria-live="polite"></ul>
          <script src="/static/evidence-upload.js" defer></script>
        </form>
      </>
    </BareLayout>
  );
}
