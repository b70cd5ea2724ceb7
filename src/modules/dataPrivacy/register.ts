import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { groups, processingActivities, users } from '../../../db/schema';
import { ownershipCondition } from '../../platform/permissions/ownership';
import type { Actor } from '../../platform/permissions/permissions';
import { recordRows, recordType, typedRecordAsSeen } from '../../platform/records/record-types';
import { valueLabel } from '../../platform/core/value-labels';
import { LINKED_TYPES } from './service';
import { PROCESSING_ROLES } from './schema';

/** One processing activity as the Article 30 register shows it: labels, not keys; linked records named as the reader may see them. */
export interface RegisterEntry {
  id: string;
  name: string;
  role: string;
  status: string;
  purposes: string;
  legalBasis: string;
  specialCategoryCondition: string;
  dataSubjectCategories: string;
  personalDataCategories: string;
  recipients: string;
  retention: string;
  systems: string;
  processors: string;
  jointControllers: string;
  securityMeasures: string;
  owner: string;
}

export interface RegisterSection {
  role: (typeof PROCESSING_ROLES)[number];
  /** "Controller (Art. 30(1))". */
  heading: string;
  entries: RegisterEntry[];
}

export const ROLE_HEADINGS: Record<(typeof PROCESSING_ROLES)[number], string> = {
  controller: 'As controller (Art. 30(1))',
  processor: 'As processor (Art. 30(2))',
};

const labels = (values: readonly string[]) => values.map(valueLabel).join('; ');

/**
 * The Article 30 register: every processing activity the reader may read (dataPrivacy:read, own level: those they or
 * their groups own), grouped by role, by name. Systems and processors are named only where the reader may read them
 * ("(restricted)" otherwise, "(deleted)" for a record gone since). Retired activities are left out: the register
 * lists the processing that is carried out (drafts are shown, marked as such).
 */
export async function articleThirtyRegister(db: DbOrTx, actor: Actor): Promise<RegisterSection[]> {
  const readable = ownershipCondition(actor, 'dataPrivacy:read', processingActivities.ownerId, processingActivities.ownerGroupId);
  const rows = await db.select({ activity: processingActivities, ownerName: users.name, ownerGroupName: groups.name })
    .from(processingActivities)
    .leftJoin(users, eq(users.id, processingActivities.ownerId))
    .leftJoin(groups, eq(groups.id, processingActivities.ownerGroupId))
    .where(and(readable, sql`${processingActivities.status} <> 'retired'`))
    .orderBy(asc(processingActivities.role), asc(processingActivities.name), asc(processingActivities.id));
  const assetType = recordType(LINKED_TYPES.systemAssetIds);
  const vendorType = recordType(LINKED_TYPES.processorThirdPartyIds);
  const [assets, vendors] = await Promise.all([
    recordRows(db, assetType, rows.flatMap((r) => r.activity.systemAssetIds)),
    recordRows(db, vendorType, rows.flatMap((r) => r.activity.processorThirdPartyIds)),
  ]);
  const named = (type: typeof assetType, found: typeof assets, ids: readonly string[]) =>
    ids.map((id) => typedRecordAsSeen(actor, type, id, found.get(id)).title).join('; ');
  const entries = rows.map(({ activity: a, ownerName, ownerGroupName }): RegisterEntry & { roleKey: string } => ({
    roleKey: a.role,
    id: a.id,
    name: a.name,
    role: valueLabel(a.role),
    status: valueLabel(a.status),
    purposes: a.purposes,
    legalBasis: valueLabel(a.legalBasis),
    specialCategoryCondition: a.specialCategoryCondition ? valueLabel(a.specialCategoryCondition) : '',
    dataSubjectCategories: labels(a.dataSubjectCategories),
    personalDataCategories: labels(a.personalDataCategories),
    recipients: a.recipients,
    retention: a.retention,
    systems: named(assetType, assets, a.systemAssetIds),
    processors: named(vendorType, vendors, a.processorThirdPartyIds),
    jointControllers: a.jointControllers,
    securityMeasures: a.securityMeasures,
    owner: ownerName ?? ownerGroupName ?? '',
  }));
  return PROCESSING_ROLES.map((role) => ({
    role, heading: ROLE_HEADINGS[role],
    entries: entries.filter((e) => e.roleKey === role).map(({ roleKey: _, ...entry }) => entry),
  }));
}

/** The register's columns, in the order of Art. 30(1): headers of the CSV download and of the printable page. */
export const REGISTER_COLUMNS: readonly { key: keyof RegisterEntry; header: string }[] = [
  { key: 'name', header: 'Processing activity' },
  { key: 'role', header: 'Role' },
  { key: 'status', header: 'Status' },
  { key: 'purposes', header: 'Purposes' },
  { key: 'legalBasis', header: 'Legal basis (Art. 6)' },
  { key: 'specialCategoryCondition', header: 'Art. 9 condition' },
  { key: 'dataSubjectCategories', header: 'Categories of data subjects' },
  { key: 'personalDataCategories', header: 'Categories of personal data' },
  { key: 'recipients', header: 'Recipients' },
  { key: 'retention', header: 'Retention' },
  { key: 'systems', header: 'Systems' },
  { key: 'processors', header: 'Processors' },
  { key: 'jointControllers', header: 'Joint controllers' },
  { key: 'securityMeasures', header: 'Technical and organisational measures' },
  { key: 'owner', header: 'Owner' },
];

/** The register as CSV rows (toCsv adds the BOM and guards formulas). */
export const registerCsvRows = (sections: readonly RegisterSection[]) => [
  REGISTER_COLUMNS.map((c) => c.header),
  ...sections.flatMap((s) => s.entries.map((e) => REGISTER_COLUMNS.map((c) => e[c.key]))),
];
