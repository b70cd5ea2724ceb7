import { t } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { Data, ErrorBody, IdParam } from '../../platform/http/envelopes';
import { recordApi } from '../../platform/records/record-api';
import { fileResponse, listFiles, loadFile, removeFile, uploadFile, fileView } from './files';
import { evidencePackage } from './package';
import {
  EvidenceCreate, EvidenceFileView, EvidenceListQuery, EvidenceUpdate, EvidenceView, FileParams, FileUploadQuery,
  linkSchemas, PackageQuery, ReminderView, RunParams, VerifyRunView,
} from './schema';
import { evidenceKind, evidenceReminders, getEvidence, linkEvidence, listLinks, lockEvidence, unlinkEvidence, unlockEvidence } from './service';
import { getVerifyRun, latestVerifyRun, startVerifyRun } from './verify';

const tags = ['Evidence'];
const declaredLength = (headers: Record<string, string | undefined>) => {
  const raw = headers['content-length'];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
};

export const evidenceApi = (ctx: AppContext) => evidenceRoutes(ctx, linkSchemas());

const evidenceRoutes = (ctx: AppContext, { EvidenceLinkInput, EvidenceLinkView, LinkParams }: ReturnType<typeof linkSchemas>) =>
  recordApi(ctx, evidenceKind, {
    path: '/evidence', tag: 'Evidence', plural: 'evidence', Create: EvidenceCreate, Update: EvidenceUpdate, View: EvidenceView, ListQuery: EvidenceListQuery,
  })
    .get('/reminders', async ({ actor }) => ({ data: await evidenceReminders(ctx.db, { owner: actor }) }), {
      scope: 'evidence:read', response: Data(t.Array(ReminderView)),
      detail: { tags, summary: 'Evidence you own (or your groups own) expiring within 30 days or expired' },
    })
    .get('/package', async ({ actor, query }) => {
      const { stream, fileName } = await evidencePackage(ctx, actor, query);
      return new Response(stream, { headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${fileName}"`, 'cache-control': 'no-store' } });
    }, {
      scope: 'evidence:read', query: PackageQuery,
      detail: {
        tags, summary: 'Auditor package: a zip of the chosen evidence files with manifest.json and the Audit Log checkpoint',
        description: 'Choose by packageId (its requirements), analysisId, controlId (and its tests), evidenceId (each may repeat) and a collectedOn range from/to; '
          + 'only evidence you may read goes in. The zip streams as it is built. Check it offline with `bun run evidence:verify <package.zip>` (docs/evidence.md).',
        responses: { 200: { description: 'The zip', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } } },
      },
    })
    .post('/verify', async ({ actor, set }) => {
      set.status = 202;
      return { data: await startVerifyRun(ctx, actor) };
    }, {
      scope: 'evidence:read', response: { 202: Data(VerifyRunView) },
      detail: { tags, summary: 'Verify files: re-read every stored file against its SHA-256, in the background (needs evidence:read at level all)' },
    })
    .get('/verify/latest', async ({ actor }) => ({ data: await latestVerifyRun(ctx.db, actor) }), {
      scope: 'evidence:read', response: Data(t.Union([VerifyRunView, t.Null()])), detail: { tags, summary: 'The latest Verify files run, with its progress' },
    })
    .get('/verify/:runId', async ({ actor, params }) => ({ data: await getVerifyRun(ctx.db, actor, params.runId) }), {
      scope: 'evidence:read', params: RunParams, response: Data(VerifyRunView), detail: { tags, summary: 'A Verify files run: progress, then every missing or changed file' },
    })
    .get('/:id/links', async ({ actor, params }) => ({ data: await listLinks(ctx.db, actor, params.id) }), {
      scope: 'evidence:read', params: IdParam, response: Data(t.Array(EvidenceLinkView)), detail: { tags, summary: 'The records the evidence proves' },
    })
    .post('/:id/links', async ({ actor, params, body, set }) => {
      await runWrite(ctx, (tx) => linkEvidence(tx, actor, params.id, body));
      set.status = 201;
      return { data: await listLinks(ctx.db, actor, params.id) };
    }, {
      scope: 'evidence:update', params: IdParam, body: EvidenceLinkInput, response: { 201: Data(t.Array(EvidenceLinkView)) },
      detail: { tags, summary: 'Link the evidence to a record it proves (needs that module\'s read scope; 404 for a record you cannot read; 409 while locked)' },
    })
    .delete('/:id/links/:recordType/:recordId', async ({ actor, params, set }) => {
      await runWrite(ctx, (tx) => unlinkEvidence(tx, actor, params.id, { recordType: params.recordType, recordId: params.recordId }));
      set.status = 204;
      return null;
    }, { scope: 'evidence:update', params: LinkParams, detail: { tags, summary: 'Unlink a record (409 while locked)', responses: { 204: { description: 'Unlinked' } } } })
    .post('/:id/lock', async ({ actor, params }) => {
      await runWrite(ctx, (tx) => lockEvidence(tx, actor, params.id));
      return { data: await getEvidence(ctx.db, actor, params.id) };
    }, { scope: 'evidence:update', params: IdParam, response: Data(EvidenceView), detail: { tags, summary: 'Lock the evidence: its fields, files and links refuse changes (409)' } })
    .post('/:id/unlock', async ({ actor, params }) => {
      await runWrite(ctx, (tx) => unlockEvidence(tx, actor, params.id));
      return { data: await getEvidence(ctx.db, actor, params.id) };
    }, { scope: 'evidence:update', params: IdParam, response: Data(EvidenceView), detail: { tags, summary: 'Unlock the evidence (needs evidence:update at level all)' } })
    .get('/:id/files', async ({ actor, params }) => ({ data: await listFiles(ctx.db, actor, params.id) }), {
      scope: 'evidence:read', params: IdParam, response: Data(t.Array(EvidenceFileView)), detail: { tags, summary: "The evidence's files with their SHA-256" },
    })
    .post('/:id/files', async ({ actor, params, query, request, headers, set }) => {
      const file = await uploadFile(ctx, actor, params.id, query.name, request.body, declaredLength(headers));
      set.status = 201;
      return { data: file };
    }, {
      scope: 'evidence:update', params: IdParam, query: FileUploadQuery, parse: 'none', response: { 201: Data(EvidenceFileView) },
      detail: {
        tags, summary: 'Upload a file: the body is the file itself; its name in the name query parameter',
        description: `Streamed to storage while hashed. At most ${ctx.config.EVIDENCE_MAX_FILE_MB} MB (413 beyond); an empty file, or a name that is blank, longer than 255 `
          + 'characters or holds path separators or control characters, is refused 400; locked evidence 409. The type is sniffed from the content.',
        requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      },
    })
    .get('/:id/files/:fileId', async ({ actor, params }) => ({ data: fileView(await loadFile(ctx.db, actor, params.id, params.fileId)) }), {
      scope: 'evidence:read', params: FileParams, response: Data(EvidenceFileView), detail: { tags, summary: "A file's details" },
    })
    .get('/:id/files/:fileId/content', async ({ actor, params, headers }) => fileResponse(ctx, await loadFile(ctx.db, actor, params.id, params.fileId), headers.range ?? null), {
      scope: 'evidence:read', params: FileParams,
      detail: {
        tags, summary: 'Download a file: X-Content-SHA256 carries the hex SHA-256 of the stored bytes; Range requests are answered 206',
        parameters: [{ name: 'Range', in: 'header', required: false, schema: { type: 'string' }, description: 'bytes=<start>-<end>, one range' }],
        responses: {
          200: { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
          206: { description: 'The requested range', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
          416: { description: 'The range lies outside the file', content: { 'application/json': { schema: ErrorBody } } },
        },
      },
    })
    .delete('/:id/files/:fileId', async ({ actor, params, set }) => {
      await removeFile(ctx, actor, params.id, params.fileId);
      set.status = 204;
      return null;
    }, { scope: 'evidence:update', params: FileParams, detail: { tags, summary: 'Remove a file (409 while locked)', responses: { 204: { description: 'Removed' } } } });
