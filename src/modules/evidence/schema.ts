import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';
import { IsoDate, Uuid, recordInputs, recordListQuery, recordView } from '../../platform/records/record-schema';
import { stringEnum } from '../../platform/http/schema-helpers';
import { once } from '../../platform/core/once';
import { recordTypes } from '../../platform/records/record-types';

export const EVIDENCE_KINDS = ['evidence', 'vendor_report'] as const;
/** Derived from the dates, never stored: expiring means valid until a day within the next 30. */
export const EVIDENCE_STATUSES = ['current', 'expiring', 'expired'] as const;
export const EXPIRING_WITHIN_DAYS = 30;

/**
 * Record types evidence can prove (the links): those their modules declare `evidence: true`, in module order; each
 * link needs its module's read right and a readable record.
 */
export const linkableTypes = () => recordTypes().filter((type) => type.evidence);
/** Where assistant content may land: evidence itself, or a linkable record that is not part of another (not a control test). */
export const uploadTargets = () => ['evidence', ...linkableTypes().filter((type) => !type.parent).map((type) => type.kind)];

const evidenceFields = {
  title: t.String({ minLength: 1, maxLength: 300 }),
  description: t.Optional(t.String({ maxLength: 100_000 })),
  kind: t.Optional(stringEnum(EVIDENCE_KINDS, { description: 'Blank gives evidence; a vendor_report names its third party' })),
  thirdPartyId: t.Optional(t.Union([Uuid, t.Null()], { description: 'The third party a vendor report is about (required for vendor_report)' })),
  collectedOn: t.Optional(t.String({ format: 'date', description: 'YYYY-MM-DD; blank gives today' })),
  validUntil: t.Optional(t.Union([IsoDate, t.Null()], { description: 'YYYY-MM-DD, on or after collectedOn; null: does not expire' })),
};
export const { Create: EvidenceCreate, Update: EvidenceUpdate } = recordInputs(evidenceFields, { customFields: true });
export type EvidenceCreate = Static<typeof EvidenceCreate>;
export type EvidenceUpdate = Static<typeof EvidenceUpdate>;

export const EvidenceView = recordView({
  title: t.String(),
  description: t.String(),
  kind: stringEnum(EVIDENCE_KINDS),
  thirdPartyId: t.Union([t.String(), t.Null()]),
  collectedOn: t.String({ description: 'YYYY-MM-DD' }),
  validUntil: t.Union([t.String({ description: 'YYYY-MM-DD' }), t.Null()]),
  status: stringEnum(EVIDENCE_STATUSES, { description: 'From validUntil: expired before today, expiring within 30 days, else current' }),
  locked: t.Boolean({ description: 'Locked evidence refuses any change to its fields, files and links (409) until unlocked' }),
  lockedAt: t.Union([t.String(), t.Null()]),
  lockedBy: t.Union([t.String(), t.Null()]),
  fileCount: Type.Integer(),
  linkCount: Type.Integer(),
  createdBy: t.Union([t.String(), t.Null()]),
}, { customFields: true });
export type EvidenceView = Static<typeof EvidenceView>;

export const EVIDENCE_SORTS = ['title', 'kind', 'status', 'collectedOn', 'validUntil', 'fileCount', 'locked', 'owner', 'createdAt', 'updatedAt'] as const;
export const EvidenceListQuery = recordListQuery(EVIDENCE_SORTS, EVIDENCE_STATUSES, {
  kind: t.Optional(stringEnum(EVIDENCE_KINDS)),
  linked: t.Optional(t.String({ format: 'uuid', description: 'Only evidence linked to this record (any record type)' })),
  locked: t.Optional(stringEnum(['true', 'false'] as const, { description: 'Only locked (true) or unlocked (false) evidence' })),
});

export const EvidenceFileView = t.Object({
  id: t.String(),
  evidenceId: t.String(),
  name: t.String(),
  size: Type.Integer({ description: 'Bytes' }),
  sha256: t.String({ description: 'Hex SHA-256 of the stored bytes' }),
  contentType: t.String({ description: 'Sniffed from the content, not taken from the name' }),
  uploadedBy: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
});
export type EvidenceFileView = Static<typeof EvidenceFileView>;

export const FileUploadQuery = t.Object({
  name: t.String({ minLength: 1, maxLength: 255, description: 'The file name as it will be downloaded (no path separators or control characters)' }),
});
export const FileParams = t.Object({ id: Uuid, fileId: Uuid });

export const VerifyProblem = t.Object({
  evidenceId: t.String(),
  evidenceTitle: t.String(),
  fileId: t.String(),
  fileName: t.String(),
  problem: stringEnum(['missing', 'mismatch'] as const),
  detail: t.String(),
});
export type VerifyProblem = Static<typeof VerifyProblem>;

export const VerifyRunView = t.Object({
  id: t.String(),
  status: stringEnum(['running', 'finished', 'interrupted'] as const),
  startedAt: t.String(),
  finishedAt: t.Union([t.String(), t.Null()]),
  total: Type.Integer({ description: 'Files to check' }),
  checked: Type.Integer({ description: 'Files checked so far' }),
  problems: t.Array(VerifyProblem),
});
export type VerifyRunView = Static<typeof VerifyRunView>;

export const PackageQuery = t.Object({
  packageId: t.Optional(Uuid),
  analysisId: t.Optional(t.Union([Uuid, t.Array(Uuid, { maxItems: 1000 })], { description: 'Requirements (analyses), one or many' })),
  controlId: t.Optional(t.Union([Uuid, t.Array(Uuid, { maxItems: 1000 })])),
  evidenceId: t.Optional(t.Union([Uuid, t.Array(Uuid, { maxItems: 1000 })])),
  from: t.Optional(IsoDate),
  to: t.Optional(IsoDate),
});
export type PackageQuery = Static<typeof PackageQuery>;

export const ReminderView = t.Object({
  evidenceId: t.String(),
  title: t.String(),
  validUntil: t.String(),
  status: stringEnum(['expiring', 'expired'] as const),
  ownerId: t.Union([t.String(), t.Null()]),
  ownerGroupId: t.Union([t.String(), t.Null()]),
});
export type ReminderView = Static<typeof ReminderView>;

export const LockState = t.Object({ locked: t.Boolean(), lockedAt: t.Union([t.String(), t.Null()]), lockedBy: t.Union([t.String(), t.Null()]) });

/* ---------- AI-assistant tool inputs ---------- */

/** upload_evidence takes at most this much content (spec Limits). */
export const ASSISTANT_UPLOAD_BYTES = 10 * 1024 * 1024;

export const EvidenceRef = t.Object({ evidenceId: Uuid }, { additionalProperties: false });

export const UPLOAD_LINK = { minutes: 15, files: 10, fileBytes: 25 * 1024 * 1024 } as const;

/** GET /evidence/verify/runs/{runId}. */
export const RunParams = t.Object({ runId: t.String({ format: 'uuid' }) });

/** POST /api/upload/{secret}/files: the file's name. */
export const UploadLinkFileQuery = t.Object({ name: t.String({ minLength: 1, maxLength: 255 }) });

/**
 * The schemas naming linkable record types, made once the modules are installed (the types come from their
 * declarations): REST link bodies and answers, the unlink path, and the assistant's link and upload inputs.
 */
export const linkSchemas = once(() => {
  const linkable = stringEnum(linkableTypes().map((type) => type.kind));
  const targets = (description: string) => stringEnum(uploadTargets(), { description });
  return {
    EvidenceLinkInput: t.Object({ recordType: linkable, recordId: Uuid }, { additionalProperties: false }),
    EvidenceLinkView: t.Object({
      recordType: linkable,
      recordId: t.String(),
      title: t.String({ description: '(restricted) when you may not read the record; (deleted) when it no longer exists' }),
      href: t.Union([t.String({ description: "Path of the record's screen" }), t.Null()]),
      linkedAt: t.String(),
    }),
    /** DELETE /evidence/{id}/links/{recordType}/{recordId}. */
    LinkParams: t.Object({ id: t.String({ format: 'uuid' }), recordType: linkable, recordId: t.String({ format: 'uuid' }) }),
    LinkEvidenceToolInput: t.Object({
      evidenceId: Uuid,
      recordType: linkable,
      recordId: Uuid,
      unlink: t.Optional(t.Boolean({ description: 'true removes the link instead of making it' })),
    }, { additionalProperties: false }),
    UploadEvidenceInput: t.Object({
      recordType: targets('evidence: a file on that evidence; any other: new evidence linked to that record'),
      recordId: Uuid,
      fileName: t.String({ minLength: 1, maxLength: 255 }),
      text: t.Optional(t.String({ maxLength: ASSISTANT_UPLOAD_BYTES, description: 'The content as text (UTF-8)' })),
      base64: t.Optional(t.String({ maxLength: Math.ceil(ASSISTANT_UPLOAD_BYTES / 3) * 4 + 4, description: 'The content, base64-encoded' })),
      title: t.Optional(t.String({ minLength: 1, maxLength: 300, description: 'Title of the new evidence (default: the file name)' })),
    }, { additionalProperties: false }),
    UploadLinkInput: t.Object({
      recordType: targets('evidence: files on that evidence; any other: each file on new evidence linked to that record'),
      recordId: Uuid,
    }, { additionalProperties: false }),
  };
});
type LinkSchemas = ReturnType<typeof linkSchemas>;
export type EvidenceLinkInput = Static<LinkSchemas['EvidenceLinkInput']>;
export type EvidenceLinkView = Static<LinkSchemas['EvidenceLinkView']>;
export type LinkEvidenceToolInput = Static<LinkSchemas['LinkEvidenceToolInput']>;
export type UploadEvidenceInput = Static<LinkSchemas['UploadEvidenceInput']>;
export type UploadLinkInput = Static<LinkSchemas['UploadLinkInput']>;
