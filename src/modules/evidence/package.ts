import { and, asc, gte, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { complianceAnalyses, controlTests, evidence, evidenceFiles, evidenceLinks } from '../../../db/schema';
import { appendAudit, type AuditEntry } from '../../platform/audit/audit';
import { canonicalJson, sha256Hex } from '../../platform/core/canonical-json';
import type { AppContext } from '../../platform/http/context';
import { invalid, invalidField } from '../../platform/core/errors';
import { requireLinked } from '../../platform/records/links';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import { zipStream, type ZipEntry } from '../../platform/storage/zip';
import { packageKind } from '../compliance/packages-service';
import type { PackageQuery } from './schema';
import { linksAsSeen, requireLinkableRecord } from './service';

/**
 * The auditor package: the chosen evidence's files in a zip streamed as it is built, a manifest.json with every
 * file's SHA-256, size and the records it proves, and the Audit Log entry recording the export (its sequence and
 * hash are the checkpoint; it seals the digest of the manifest's file list). `bun run evidence:verify` checks a
 * package offline (src/modules/evidence/package-verify.ts).
 */

export const PACKAGE_FORMAT = 'grc-evidence-package';

export interface ManifestFile {
  path: string;
  name: string;
  evidenceId: string;
  size: number;
  sha256: string;
  contentType: string;
}

export interface PackageManifest {
  format: typeof PACKAGE_FORMAT;
  version: 1;
  exportedAt: string;
  exportedBy: string | null;
  selection: PackageQuery;
  /** SHA-256 of the canonical JSON of `files`; the export's Audit Log entry carries the same digest. */
  filesDigest: string;
  /** The export's Audit Log entry in full: its seq and hash are the checkpoint, and it can be rehashed offline. */
  auditCheckpoint: AuditEntry;
  evidence: {
    id: string; title: string; kind: string; collectedOn: string; validUntil: string | null; locked: boolean;
    proves: { recordType: string; recordId: string; title: string }[];
    files: string[];
  }[];
  files: ManifestFile[];
  /** Files whose stored bytes did not have their recorded size while the package was written (see Verify files). */
  storeProblems: { path: string; recordedSize: number; storedSize: number }[];
}

export const filesDigest = (files: ManifestFile[]) => sha256Hex(canonicalJson(files));

const asList = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The evidence the selection names, among what the actor may read; each named record must be readable (404 otherwise). */
async function selectedEvidence(db: DbOrTx, actor: Actor, query: PackageQuery) {
  requirePermission(actor, 'evidence:read');
  const analysisIds = asList(query.analysisId);
  const controlIds = asList(query.controlId);
  const evidenceIds = asList(query.evidenceId);
  if (!query.packageId && !analysisIds.length && !controlIds.length && !evidenceIds.length && !query.from && !query.to) {
    throw invalid([{ field: 'selection', message: 'choose what goes in: a package, requirements, controls, evidence or a date range' }]);
  }
  if (query.from && query.to && query.from > query.to) throw invalidField('to', 'must be on or after from');
  if (query.packageId) await requireLinked(db, actor, packageKind, query.packageId, 'packageId');
  for (const id of analysisIds) await requireLinkableRecord(db, actor, { recordType: 'requirement', recordId: id }, 'analysisId');
  for (const id of controlIds) await requireLinkableRecord(db, actor, { recordType: 'control', recordId: id }, 'controlId');

  const linkedTo = (recordType: string, ids: SQL | string[]) => sql`exists (select 1 from ${evidenceLinks} where ${evidenceLinks.evidenceId} = ${evidence.id}
    and ${evidenceLinks.recordType} = ${recordType} and ${evidenceLinks.recordId} in ${Array.isArray(ids) ? sql`(${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})` : ids})`;
  const byRecord: SQL[] = [];
  if (query.packageId) byRecord.push(linkedTo('requirement', sql`(select ${complianceAnalyses.id} from ${complianceAnalyses} where ${complianceAnalyses.packageId} = ${query.packageId})`));
  if (analysisIds.length) byRecord.push(linkedTo('requirement', analysisIds));
  if (controlIds.length) {
    byRecord.push(linkedTo('control', controlIds));
    byRecord.push(linkedTo('controlTest', sql`(select ${controlTests.id} from ${controlTests} where ${inArray(controlTests.controlId, controlIds)})`));
  }
  if (evidenceIds.length) byRecord.push(inArray(evidence.id, evidenceIds));
  return db.select().from(evidence).where(and(
    ownershipCondition(actor, 'evidence:read', evidence.ownerId, evidence.ownerGroupId),
    byRecord.length ? or(...byRecord) : undefined,
    query.from ? gte(evidence.collectedOn, query.from) : undefined,
    query.to ? lte(evidence.collectedOn, query.to) : undefined,
  )).orderBy(asc(evidence.title), asc(evidence.id));
}

/** A name unique within its evidence folder: "report.pdf", then "report (2).pdf". */
function uniqueName(taken: Set<string>, name: string): string {
  if (!taken.has(name)) return name;
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; ; n += 1) {
    const candidate = `${stem} (${n})${extension}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Builds the package for the selection: records the export in the Audit Log, then streams the zip. */
export async function evidencePackage(ctx: AppContext, actor: Actor, query: PackageQuery): Promise<{ stream: ReadableStream<Uint8Array>; fileName: string }> {
  const chosen = await selectedEvidence(ctx.db, actor, query);
  const ids = chosen.map((e) => e.id);
  const files = ids.length
    ? await ctx.db.select().from(evidenceFiles).where(inArray(evidenceFiles.evidenceId, ids)).orderBy(asc(evidenceFiles.createdAt), asc(evidenceFiles.id))
    : [];
  const links = await linksAsSeen(ctx.db, actor, ids);
  const manifestFiles: (ManifestFile & { storageKey: string; crc32: number; createdAt: Date })[] = [];
  const namesByEvidence = new Map<string, Set<string>>();
  for (const file of files) {
    const taken = namesByEvidence.get(file.evidenceId) ?? new Set<string>();
    namesByEvidence.set(file.evidenceId, taken);
    const name = uniqueName(taken, file.name);
    taken.add(name);
    manifestFiles.push({
      path: `files/${file.evidenceId}/${name}`, name: file.name, evidenceId: file.evidenceId, size: file.size, sha256: file.sha256,
      contentType: file.contentType, storageKey: file.storageKey, crc32: file.crc32, createdAt: file.createdAt,
    });
  }
  const listed: ManifestFile[] = manifestFiles.map(({ path, name, evidenceId, size, sha256, contentType }) => ({ path, name, evidenceId, size, sha256, contentType }));
  const digest = filesDigest(listed);
  const [checkpoint] = await ctx.db.transaction((tx) => appendAudit(tx, actor, [{
    module: 'evidence', action: 'package.export',
    details: { selection: query, evidence: chosen.length, files: listed.length, bytes: listed.reduce((sum, f) => sum + f.size, 0), filesDigest: digest },
  }]));
  const exportedAt = checkpoint.at;
  const storeProblems: PackageManifest['storeProblems'] = [];
  const manifest = (): PackageManifest => ({
    format: PACKAGE_FORMAT, version: 1, exportedAt, exportedBy: actor.email, selection: query, filesDigest: digest, auditCheckpoint: checkpoint,
    evidence: chosen.map((e) => ({
      id: e.id, title: e.title, kind: e.kind, collectedOn: e.collectedOn, validUntil: e.validUntil, locked: e.locked,
      proves: (links.get(e.id) ?? []).map((l) => ({ recordType: l.recordType, recordId: l.recordId, title: l.title })),
      files: manifestFiles.filter((f) => f.evidenceId === e.id).map((f) => f.path),
    })),
    files: listed,
    storeProblems,
  });
  async function* entries(): AsyncGenerator<ZipEntry> {
    for (const file of manifestFiles) {
      yield { name: file.path, size: file.size, crc32: file.crc32, modified: file.createdAt, body: () => ctx.storage.read(file.storageKey) };
    }
    const bytes = new TextEncoder().encode(`${JSON.stringify(manifest(), null, 2)}\n`);
    yield { name: 'manifest.json', size: bytes.length, crc32: Bun.hash.crc32(bytes) >>> 0, modified: new Date(exportedAt), body: () => bytes };
  }
  const byPath = new Map(manifestFiles.map((f) => [f.path, f]));
  const stream = zipStream(entries(), (entry, actual) => {
    storeProblems.push({ path: entry.name, recordedSize: byPath.get(entry.name)?.size ?? entry.size, storedSize: actual });
  });
  const stamp = exportedAt.slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  return { stream, fileName: `evidence-package-${stamp}.zip` };
}
