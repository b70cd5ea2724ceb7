import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { assetDataMaps, thirdPartyDpas } from '../../../db/schema';
import { recordChange } from '../../platform/audit/history';
import { invalid, type FieldProblem } from '../../platform/core/errors';
import { requireOnRecord, requirePermission, type Actor } from '../../platform/permissions/permissions';
import { recordType, requireTypedRecord } from '../../platform/records/record-types';
import { countryName, isCountryCode } from './countries';
import type { AssetDataMapInput, AssetDataMapView, ThirdPartyDpaInput, ThirdPartyDpaView } from './schema';
import { categoryProblems, personalDataCategoryList } from './categories';
import { latestTodayIso } from '../../platform/core/dates';

/**
 * Data-map fields on assets and DPA fields on third parties: stored by data privacy in tables keyed by the asset or
 * third party, so only data privacy rights read and write them (never the assets or third-parties screens, REST or
 * CSV import). The host record must be one the actor may read (its module's read right, 403; a readable record, 404
 * like a missing one, audited); at level own the data privacy right applies to the records the actor or their groups own.
 */

type Right = 'dataPrivacy:read' | 'dataPrivacy:update';

async function host(db: DbOrTx, actor: Actor, kind: 'asset' | 'thirdParty', id: string, right: Right) {
  requirePermission(actor, right);
  const type = recordType(kind);
  const { row } = await requireTypedRecord(db, actor, type, id);
  requireOnRecord(actor, right, row, `${type.label} ${id}`);
  return row;
}

const at = (d: Date | null | undefined) => (d ? d.toISOString() : null);

const dataMapView = (assetId: string, row: typeof assetDataMaps.$inferSelect | undefined): AssetDataMapView => ({
  assetId,
  personalDataHeld: row?.personalDataHeld ?? false,
  dataCategories: row?.dataCategories ?? [],
  locationCountry: row?.locationCountry ?? null,
  locationCountryName: countryName(row?.locationCountry),
  retention: row?.retention ?? '',
  hosting: row?.hosting ?? null,
  updatedAt: at(row?.updatedAt),
});

const dpaView = (thirdPartyId: string, row: typeof thirdPartyDpas.$inferSelect | undefined): ThirdPartyDpaView => ({
  thirdPartyId,
  signedOn: row?.signedOn ?? null,
  version: row?.version ?? '',
  subProcessorCountries: row?.subProcessorCountries ?? [],
  subProcessorCountryNames: (row?.subProcessorCountries ?? []).map(countryName),
  updatedAt: at(row?.updatedAt),
});

/** History and the Audit Log keep the fields as stored, without the bookkeeping. */
const fieldsOf = <R extends { updatedAt: Date }>(row: R | undefined) => {
  if (!row) return null;
  const { updatedAt: _, ...fields } = row;
  return fields as Record<string, unknown>;
};

export async function getAssetDataMap(db: DbOrTx, actor: Actor, assetId: string): Promise<AssetDataMapView> {
  await host(db, actor, 'asset', assetId, 'dataPrivacy:read');
  const [row] = await db.select().from(assetDataMaps).where(eq(assetDataMaps.assetId, assetId));
  return dataMapView(assetId, row);
}

/** Records or replaces an asset's data-map fields (dataPrivacy:update), with its Audit Log and History entries. */
export async function putAssetDataMap(tx: DbOrTx, actor: Actor, assetId: string, input: AssetDataMapInput): Promise<AssetDataMapView> {
  await host(tx, actor, 'asset', assetId, 'dataPrivacy:update');
  const problems: FieldProblem[] = [];
  if (input.locationCountry && !isCountryCode(input.locationCountry)) problems.push({ field: 'locationCountry', message: `${input.locationCountry} is not an ISO 3166-1 alpha-2 country code` });
  if (!input.personalDataHeld && (input.dataCategories ?? []).length) problems.push({ field: 'dataCategories', message: 'must be empty unless the asset holds personal data' });
  const [before] = await tx.select().from(assetDataMaps).where(eq(assetDataMaps.assetId, assetId)).for('update');
  // The categories of personal data of Settings › Privacy categories; values the asset already held are kept as they are.
  problems.push(...await categoryProblems(tx, personalDataCategoryList, 'dataCategories', input.dataCategories, before?.dataCategories));
  if (problems.length) throw invalid(problems);
  const values = {
    personalDataHeld: input.personalDataHeld, dataCategories: input.dataCategories ?? [], locationCountry: input.locationCountry ?? null,
    retention: (input.retention ?? '').trim(), hosting: input.hosting ?? null,
  };
  const [after] = await tx.insert(assetDataMaps).values({ assetId, ...values })
    .onConflictDoUpdate({ target: assetDataMaps.assetId, set: { ...values, updatedAt: new Date() } }).returning();
  await recordChange(tx, actor, { module: 'dataPrivacy', recordType: 'assetDataMap', recordId: assetId, action: before ? 'update' : 'create', before: fieldsOf(before), after: fieldsOf(after) });
  return dataMapView(assetId, after);
}

export async function getThirdPartyDpa(db: DbOrTx, actor: Actor, thirdPartyId: string): Promise<ThirdPartyDpaView> {
  await host(db, actor, 'thirdParty', thirdPartyId, 'dataPrivacy:read');
  const [row] = await db.select().from(thirdPartyDpas).where(eq(thirdPartyDpas.thirdPartyId, thirdPartyId));
  return dpaView(thirdPartyId, row);
}

/** Records or replaces a third party's DPA fields (dataPrivacy:update), with its Audit Log and History entries. */
export async function putThirdPartyDpa(tx: DbOrTx, actor: Actor, thirdPartyId: string, input: ThirdPartyDpaInput, now = new Date()): Promise<ThirdPartyDpaView> {
  await host(tx, actor, 'thirdParty', thirdPartyId, 'dataPrivacy:update');
  const unknown = (input.subProcessorCountries ?? []).filter((code) => !isCountryCode(code));
  if (unknown.length) throw invalid([{ field: 'subProcessorCountries', message: `${unknown.join(', ')}: not ISO 3166-1 alpha-2 country codes` }]);
  // Not in the future in any time zone: a DPA signed today east of UTC may already be tomorrow there.
  if (input.signedOn && input.signedOn > latestTodayIso(now)) throw invalid([{ field: 'signedOn', message: 'must not be in the future' }]);
  const values = { signedOn: input.signedOn ?? null, version: (input.version ?? '').trim(), subProcessorCountries: input.subProcessorCountries ?? [] };
  const [before] = await tx.select().from(thirdPartyDpas).where(eq(thirdPartyDpas.thirdPartyId, thirdPartyId)).for('update');
  const [after] = await tx.insert(thirdPartyDpas).values({ thirdPartyId, ...values })
    .onConflictDoUpdate({ target: thirdPartyDpas.thirdPartyId, set: { ...values, updatedAt: new Date() } }).returning();
  await recordChange(tx, actor, { module: 'dataPrivacy', recordType: 'thirdPartyDpa', recordId: thirdPartyId, action: before ? 'update' : 'create', before: fieldsOf(before), after: fieldsOf(after) });
  return dpaView(thirdPartyId, after);
}
