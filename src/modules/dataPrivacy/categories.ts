import { assetDataMaps, privacyDataSubjectCategories, privacyPersonalDataCategories, processingActivities } from '../../../db/schema';
import type { DbOrTx } from '../../../db/client';
import type { FieldProblem } from '../../platform/core/errors';
import { defineNameList } from '../../platform/name-lists/name-list';
import { systemActor } from '../../platform/permissions/permissions';

/**
 * The categories of data subjects and of personal data (GDPR Art. 30(1)(c)): name lists an administrator edits under
 * Settings › Privacy categories (`/settings/data-privacy`) and at /api/v1/data-privacy/<list>. Read with
 * dataPrivacy:read (or settings:read), changed with Settings rights, each change audited. Records store an entry's
 * key, so renaming an entry changes no record; the migration seeds the keys the fixed lists used before. An entry in
 * use is not deleted (409 naming how many records use it).
 */
export const dataSubjectCategoryList = defineNameList({
  recordType: 'privacy_data_subject_category',
  label: 'Category of data subjects',
  plural: 'Categories of data subjects',
  table: privacyDataSubjectCategories,
  keyed: true,
  readers: 'dataPrivacy:read',
  usedBy: {
    table: processingActivities, column: processingActivities.dataSubjectCategories, one: 'processing activity', many: 'processing activities',
    countField: 'recordCount', countDescription: 'How many processing activities name this category (one in use cannot be deleted)',
  },
});

export const personalDataCategoryList = defineNameList({
  recordType: 'privacy_personal_data_category',
  label: 'Category of personal data',
  plural: 'Categories of personal data',
  table: privacyPersonalDataCategories,
  keyed: true,
  readers: 'dataPrivacy:read',
  usedBy: {
    table: processingActivities, column: processingActivities.personalDataCategories,
    alsoIn: [{ table: assetDataMaps, column: assetDataMaps.dataCategories }],
    one: 'processing activity or asset', many: 'processing activities or assets',
    countField: 'recordCount', countDescription: 'How many processing activities and assets (data-map fields) name this category (one in use cannot be deleted)',
  },
});

type CategoryList = typeof dataSubjectCategoryList;

/** A list's entries as choices, keys as values and names as labels (the lists are short: read whole). */
export async function categoryChoices(db: DbOrTx, list: CategoryList): Promise<{ value: string; label: string }[]> {
  // The lists are reference data every reader of a record may see named, whatever their Settings rights.
  const rows = await list.options(db, systemActor());
  return rows.map((row) => ({ value: row.key, label: row.name }));
}

/**
 * The problems of the categories a write names: each value added must be a key of the list (400 naming the field and
 * the values). Values kept as the record held them are not judged again, so a record never fails on a value written
 * before.
 */
export async function categoryProblems(db: DbOrTx, list: CategoryList, field: string, values: readonly string[] | undefined, before: readonly string[] = []): Promise<FieldProblem[]> {
  const added = (values ?? []).filter((value) => !before.includes(value));
  if (added.length === 0) return [];
  const known = new Set((await categoryChoices(db, list)).map((c) => c.value));
  const unknown = added.filter((value) => !known.has(value));
  return unknown.length
    ? [{ field, message: `${unknown.join(', ')}: not in the list of ${list.spec.plural.toLowerCase()} (Settings › Privacy categories)` }]
    : [];
}

