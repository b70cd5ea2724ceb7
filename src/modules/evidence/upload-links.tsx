import { Elysia } from 'elysia';
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import { evidenceUploadLinks } from '../../../db/schema';
import { sha256Hex } from '../../platform/core/canonical-json';
import { runWrite, type AppContext } from '../../platform/http/context';
import { AppError, invalidField, notFound } from '../../platform/core/errors';
import { appendAudit } from '../../platform/audit/audit';
import { platformService } from '../../platform/http/installed';
import { defineTool } from '../../platform/modules/tools';
import type { Actor } from '../../platform/permissions/permissions';
import { attachStored, checkAttachTarget } from './assistant';
import { fileNameProblem, storeFile } from './files';
import { linkSchemas, UPLOAD_LINK, UploadLinkFileQuery, type UploadLinkInput } from './schema';
import { UploadPage } from './views';

/**
 * Upload links (request_upload_link): a browser page, usable without signing in only through the link's secret, to
 * upload up to 10 files of 25 MB to one record within 15 minutes. The secret is stored as its SHA-256; each slot is
 * used once (a failed upload gives its slot back); uploads are written as the user who asked, with that user's rights
 * at upload time.
 */

const tooLargeForLink = `file: larger than the ${UPLOAD_LINK.fileBytes / 1024 / 1024} MB an upload link takes`;

export async function requestUploadLink(ctx: AppContext, actor: Actor, input: UploadLinkInput, origin: string) {
  await checkAttachTarget(ctx, actor, input);
  if (!actor.userId) throw new AppError('FORBIDDEN', 'forbidden', [], 'upload links are for users');
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const expiresAt = new Date(Date.now() + UPLOAD_LINK.minutes * 60_000);
  await runWrite(ctx, async (tx) => {
    const [link] = await tx.insert(evidenceUploadLinks).values({
      secretHash: sha256Hex(secret), userId: actor.userId!, tokenId: actor.tokenId ?? null, recordType: input.recordType, recordId: input.recordId, expiresAt,
    }).returning();
    await appendAudit(tx, actor, [{
      module: 'evidence', action: 'upload_link.create', recordType: 'evidenceUploadLink', recordId: link.id,
      details: { recordType: input.recordType, recordId: input.recordId, expiresAt: expiresAt.toISOString() },
    }]);
  });
  return {
    url: `${origin}/upload/${secret}`, expiresAt: expiresAt.toISOString(), maxFiles: UPLOAD_LINK.files, maxFileMb: UPLOAD_LINK.fileBytes / 1024 / 1024,
    note: 'Give this link to the user: it opens a page where they choose the files. It works once per file, for 15 minutes.',
  };
}

type LinkRow = typeof evidenceUploadLinks.$inferSelect;

/** The link of a secret, or a clear refusal: unknown (404), expired (410), used up (409). */
async function openLink(ctx: AppContext, secret: string): Promise<LinkRow> {
  const [link] = /^[A-Za-z0-9_-]{43}$/.test(secret)
    ? await ctx.db.select().from(evidenceUploadLinks).where(eq(evidenceUploadLinks.secretHash, sha256Hex(secret)))
    : [];
  if (!link) throw notFound('Upload link');
  if (link.expiresAt <= new Date()) throw new AppError('GONE', `This upload link expired at ${link.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC. Ask the assistant for a new one.`);
  if (link.filesUsed >= UPLOAD_LINK.files) throw new AppError('CONFLICT', `All ${UPLOAD_LINK.files} files of this upload link were uploaded. Ask the assistant for a new one.`);
  return link;
}

/** The user the link acts as, with their rights now; a deactivated user's links stop working. */
async function linkActor(ctx: AppContext, link: LinkRow): Promise<Actor> {
  const actor = await platformService('screenActor')(ctx.db, link.userId);
  if (!actor) throw new AppError('FORBIDDEN', 'forbidden', [], 'the user of this upload link is no longer active');
  return { ...actor, via: 'mcp', tokenId: link.tokenId ?? undefined, source: 'upload link' };
}

async function uploadThroughLink(ctx: AppContext, secret: string, name: string, body: ReadableStream<Uint8Array> | null, declared?: number) {
  const problem = fileNameProblem(name);
  if (problem) throw invalidField('name', problem);
  const link = await openLink(ctx, secret);
  const actor = await linkActor(ctx, link);
  const target = { recordType: link.recordType, recordId: link.recordId };
  await checkAttachTarget(ctx, actor, target);
  // Claim a slot first, so eleven uploads at once cannot all pass the count; a failure gives it back.
  const [claimed] = await ctx.db.update(evidenceUploadLinks).set({ filesUsed: sql`${evidenceUploadLinks.filesUsed} + 1` })
    .where(and(eq(evidenceUploadLinks.id, link.id), lt(evidenceUploadLinks.filesUsed, UPLOAD_LINK.files), gt(evidenceUploadLinks.expiresAt, new Date()))).returning();
  if (!claimed) await openLink(ctx, secret);
  try {
    const stored = await storeFile(ctx, body, declared, UPLOAD_LINK.fileBytes, tooLargeForLink);
    return await attachStored(ctx, actor, target, name, stored);
  } catch (error) {
    await ctx.db.update(evidenceUploadLinks).set({ filesUsed: sql`${evidenceUploadLinks.filesUsed} - 1` }).where(eq(evidenceUploadLinks.id, link.id));
    throw error;
  }
}

export const UPLOAD_LINK_PATH = /^\/api\/upload\/[^/]+\/files$/;

export const uploadLinkRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'evidence:upload-links' })
    .get('/upload/:secret', async ({ params, set }) => {
      set.headers['content-type'] = 'text/html; charset=utf-8';
      set.headers['cache-control'] = 'no-store';
      set.headers['referrer-policy'] = 'no-referrer';
      return <UploadPage secret={params.secret} link={await openLink(ctx, params.secret)} />;
    }, { detail: { hide: true } })
    .post('/api/upload/:secret/files', async ({ params, query, request, headers, set }) => {
      const length = headers['content-length'];
      const result = await uploadThroughLink(ctx, params.secret, query.name, request.body, length && /^\d+$/.test(length) ? Number(length) : undefined);
      set.status = 201;
      return { data: result.file };
    }, {
      parse: 'none', query: UploadLinkFileQuery,
      detail: {
        tags: ['Evidence'], summary: 'Upload a file through an upload link an assistant asked for (the link’s secret is the credential)',
        description: `The body is the file (at most ${UPLOAD_LINK.fileBytes / 1024 / 1024} MB); 404 unknown link, 410 expired, 409 every file used.`,
        requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      },
    });

export const uploadLinkLimit = { path: UPLOAD_LINK_PATH, bytes: UPLOAD_LINK.fileBytes, message: tooLargeForLink };

export const uploadLinkTool = () => defineTool({
  name: 'request_upload_link', title: 'Ask for an upload link', readOnly: false, input: linkSchemas().UploadLinkInput,
  needs: { anyOf: ['evidence:update', 'evidence:create'] },
  description: 'A browser link, valid 15 minutes, for the user to upload up to 10 files (25 MB each) to a record: onto evidence, or each file onto new evidence linked to another record the user may update. Give the link to the user.',
  run: (ctx, actor, args, call) => requestUploadLink(ctx, actor, args, call.origin),
});
