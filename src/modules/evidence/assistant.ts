import { defineTool, type AssistantTool } from '../../platform/modules/tools';
import { recordType } from '../../platform/records/record-types';
import { AppError, invalidField } from '../../platform/core/errors';
import { requireOnRecord, requirePermission, type Actor } from '../../platform/permissions/permissions';
import { createRecord, listRecords, loadForAction, type ListParams } from '../../platform/records/records';
import { runWrite, type AppContext } from '../../platform/http/context';
import { fileNameProblem, listFiles, recordOrDiscard, recordStoredFile, storeFile, type StoredBytes } from './files';
import {
  ASSISTANT_UPLOAD_BYTES, EvidenceCreate, EvidenceListQuery, EvidenceRef, linkableTypes, linkSchemas, type UploadEvidenceInput,
} from './schema';
import { evidenceKind, evidenceLinkedTo, getEvidence, linkedOwner, linkEvidence, linksAsSeen, lockEvidence, requireLinkableRecord, unlinkEvidence } from './service';

/** Evidence rows with their files (name, size, SHA-256) and links, as list_evidence and get_record give them. */
async function withFilesAndLinks(ctx: AppContext, actor: Actor, ids: string[]) {
  const links = await linksAsSeen(ctx.db, actor, ids);
  const files = new Map(await Promise.all(ids.map(async (id) => [id, await listFiles(ctx.db, actor, id)] as const)));
  return { links, files };
}

async function listEvidence(ctx: AppContext, actor: Actor, args: ListParams) {
  const page = await listRecords(ctx.db, evidenceKind, actor, args);
  const ids = page.rows.map((row) => String(row.id));
  const { links, files } = await withFilesAndLinks(ctx, actor, ids);
  return { ...page, rows: page.rows.map((row) => ({ ...row, files: files.get(String(row.id)) ?? [], links: links.get(String(row.id)) ?? [] })) };
}

export async function evidenceInFull(ctx: AppContext, actor: Actor, id: string) {
  const record = await getEvidence(ctx.db, actor, id);
  const { links, files } = await withFilesAndLinks(ctx, actor, [id]);
  return { ...record, files: files.get(id) ?? [], links: links.get(id) ?? [] };
}

/** Evidence proving any of `targets` that the actor may read, each with its files (name, size, SHA-256): get_record's attachments. */
export async function evidenceProving(ctx: AppContext, actor: Actor, targets: readonly { kind: string; ids: readonly string[] }[]) {
  const linked = await evidenceLinkedTo(ctx.db, actor, targets.map((target) => target.kind), targets.flatMap((target) => target.ids));
  return Promise.all(linked.map(async (e) => ({ ...e, files: await listFiles(ctx.db, actor, e.id) })));
}

/** The content of an upload_evidence call as bytes: text or base64, one of them, at most 10 MB. */
function uploadBytes(input: UploadEvidenceInput): Uint8Array<ArrayBuffer> {
  if ((input.text === undefined) === (input.base64 === undefined)) throw invalidField('text', 'give the content as text or as base64, one of them');
  if (input.base64 !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(input.base64.replace(/\s+/g, ''))) throw invalidField('base64', 'is not base64');
  const bytes = input.text !== undefined ? new TextEncoder().encode(input.text) : Uint8Array.from(Buffer.from(input.base64!, 'base64'));
  if (bytes.length > ASSISTANT_UPLOAD_BYTES) throw new AppError('TOO_LARGE', `upload_evidence takes at most ${ASSISTANT_UPLOAD_BYTES / 1024 / 1024} MB; upload larger files on the evidence page or through the REST API`);
  if (bytes.length === 0) throw invalidField('file', 'the file is empty');
  return bytes as Uint8Array<ArrayBuffer>;
}

/** Where assistant content lands: evidence itself, or another record (new evidence linked to it). */
export interface AttachTarget {
  /** 'evidence' or a linkable record type's kind (linkSchemas' upload targets). */
  recordType: string;
  recordId: string;
}

/**
 * Refuses before any byte is stored when the content could not land: evidence the user cannot read, or another record
 * the user may not update or read (404) or evidence:create missing (403). The write re-checks everything.
 */
export async function checkAttachTarget(ctx: AppContext, actor: Actor, target: AttachTarget): Promise<void> {
  if (target.recordType === 'evidence') {
    await loadForAction(ctx.db, evidenceKind, actor, target.recordId, 'update');
    return;
  }
  const link = { recordType: target.recordType, recordId: target.recordId };
  const type = recordType(link.recordType);
  const row = await requireLinkableRecord(ctx.db, actor, link, 'recordId');
  requireOnRecord(actor, `${type.module}:update`, await linkedOwner(ctx.db, link), `${type.label} ${row.id}`);
  requirePermission(actor, 'evidence:create');
}

/** Records stored bytes where they land, in one transaction (new evidence and its link when needed); a refusal removes them. */
export function attachStored(ctx: AppContext, actor: Actor, target: AttachTarget, fileName: string, stored: StoredBytes, title?: string) {
  return recordOrDiscard(ctx, stored, async (tx) => {
    let evidenceId = target.recordId;
    if (target.recordType !== 'evidence') {
      const created: EvidenceCreate = { title: title ?? fileName, description: 'Uploaded by an AI assistant.' };
      evidenceId = (await createRecord(tx, evidenceKind, actor, created)).id;
      await linkEvidence(tx, actor, evidenceId, { recordType: target.recordType, recordId: target.recordId });
    }
    const file = await recordStoredFile(tx, actor, evidenceId, fileName, stored);
    return { evidenceId, file };
  });
}

/**
 * upload_evidence: onto evidence the user may update, or onto any other supported record the user may update, where it
 * lands on new evidence linked to that record (needing evidence:create). Stored first, then recorded in one
 * transaction (evidence, link, file); a refusal leaves nothing.
 */
async function uploadEvidence(ctx: AppContext, actor: Actor, input: UploadEvidenceInput) {
  const nameProblem = fileNameProblem(input.fileName);
  if (nameProblem) throw invalidField('fileName', nameProblem);
  const bytes = uploadBytes(input);
  await checkAttachTarget(ctx, actor, input);
  const stored = await storeFile(ctx, new Blob([bytes]).stream(), bytes.length, ASSISTANT_UPLOAD_BYTES);
  return attachStored(ctx, actor, input, input.fileName, stored, input.title);
}

export const evidenceTools = (): AssistantTool[] => {
  const { LinkEvidenceToolInput, UploadEvidenceInput } = linkSchemas();
  return [
    defineTool({
      name: 'list_evidence', title: 'List evidence', readOnly: true, input: EvidenceListQuery, needs: { allOf: ['evidence:read'] },
      description: 'Evidence and vendor reports you may read, with status (current, expiring, expired), lock state, files (name, size, SHA-256) and the records each proves. Filters: kind, status, linked (a record id), locked, ownerId, q; paged.',
      run: (ctx, actor, args) => listEvidence(ctx, actor, args),
    }),
    defineTool({
      name: 'create_evidence', title: 'Record evidence', readOnly: false, input: EvidenceCreate, needs: { allOf: ['evidence:create'] },
      description: 'Record evidence or a vendor report (kind vendor_report names its thirdPartyId). Needs evidence:create.',
      run: async (ctx, actor, args) => {
        const { id } = await runWrite(ctx, (tx) => createRecord(tx, evidenceKind, actor, args));
        return getEvidence(ctx.db, actor, id);
      },
    }),
    defineTool({
      name: 'link_evidence', title: 'Link or unlink evidence', readOnly: false, destructive: true, input: LinkEvidenceToolInput, needs: { allOf: ['evidence:update'] },
      description: `Link evidence to a record it proves (${linkableTypes().map((type) => type.kind).join(', ')}), or unlink it with unlink: true. Needs evidence:update and read access to the record; refused while the evidence is locked.`,
      run: async (ctx, actor, input) => {
        const link = { recordType: input.recordType, recordId: input.recordId };
        await runWrite(ctx, (tx) => (input.unlink ? unlinkEvidence(tx, actor, input.evidenceId, link) : linkEvidence(tx, actor, input.evidenceId, link)));
        return evidenceInFull(ctx, actor, input.evidenceId);
      },
    }),
    defineTool({
      name: 'lock_evidence', title: 'Lock evidence', readOnly: false, input: EvidenceRef, needs: { allOf: ['evidence:update'] },
      description: 'Lock evidence so its fields, files and links cannot change. Needs evidence:update. Unlocking is only possible in the app or the REST API.',
      run: async (ctx, actor, { evidenceId }) => {
        await runWrite(ctx, (tx) => lockEvidence(tx, actor, evidenceId));
        return getEvidence(ctx.db, actor, evidenceId);
      },
    }),
    defineTool({
      name: 'upload_evidence', title: 'Upload evidence', readOnly: false, input: UploadEvidenceInput, needs: { anyOf: ['evidence:update', 'evidence:create'] },
      description: 'Attach short content you wrote (text, or base64 up to 10 MB) as a file. recordType evidence: onto that evidence (evidence:update). Any other record you may update (for example a control or a requirement): onto new evidence linked to it (evidence:create). Answers the file with its SHA-256.',
      run: (ctx, actor, args) => uploadEvidence(ctx, actor, args),
    }),
  ];
};
