import { eq, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { complianceAnalyses, complianceItems, exceptions, policies, risks } from '../../../db/schema';
import type { Module } from '../../platform/permissions/permissions';

/**
 * The kinds of record an exception can belong to. Each kind names its module (whose read, update, delete and review
 * rights govern its exceptions), its table and the exceptions column pointing at it. Adding compliance requirements
 * later means a column and check in db/schema/exceptions.ts and one entry here.
 */
export interface ExceptionParent {
  type: 'risk' | 'policy' | 'compliance';
  module: Module;
  /** 'Risk', for messages. */
  label: string;
  /** Path under /api/v1. */
  path: string;
  /** Stored in the Audit Log and History. */
  recordType: string;
  /** The exceptions column pointing at the parent. */
  column: 'riskId' | 'policyId' | 'complianceAnalysisId';
  table: PgTable;
  idColumn: PgColumn;
  /** A column, or an expression over the parent table's row (a compliance analysis is titled by its requirement). */
  titleColumn: PgColumn | SQL;
  ownerColumn: PgColumn;
  ownerGroupColumn: PgColumn;
}

export const riskParent: ExceptionParent = {
  type: 'risk', module: 'risks', label: 'Risk', path: '/risks/exceptions', recordType: 'riskException', column: 'riskId',
  table: risks, idColumn: risks.id, titleColumn: risks.title, ownerColumn: risks.ownerId, ownerGroupColumn: risks.ownerGroupId,
};

export const policyParent: ExceptionParent = {
  type: 'policy', module: 'policies', label: 'Policy', path: '/policies/exceptions', recordType: 'policyException', column: 'policyId',
  table: policies, idColumn: policies.id, titleColumn: policies.title, ownerColumn: policies.ownerId, ownerGroupColumn: policies.ownerGroupId,
};

/**
 * A compliance exception belongs to the analysis of one requirement (parentId is the analysis id); its title is the
 * requirement's code and name, read by a correlated subquery so lists stay one query.
 */
export const complianceParent: ExceptionParent = {
  type: 'compliance', module: 'compliance', label: 'Requirement', path: '/compliance/exceptions', recordType: 'complianceException',
  column: 'complianceAnalysisId', table: complianceAnalyses, idColumn: complianceAnalyses.id,
  titleColumn: sql<string>`(select ${complianceItems.code} || ' ' || ${complianceItems.name} from ${complianceItems} where ${complianceItems.id} = ${complianceAnalyses.itemId})`,
  ownerColumn: complianceAnalyses.ownerId, ownerGroupColumn: complianceAnalyses.ownerGroupId,
};

export const EXCEPTION_PARENTS: readonly ExceptionParent[] = [riskParent, policyParent, complianceParent];

export const parentColumn = (parent: ExceptionParent) => exceptions[parent.column];

export interface ParentRecord {
  id: string;
  title: string;
  ownerId: string | null;
  ownerGroupId: string | null;
}

export async function loadParent(db: DbOrTx, parent: ExceptionParent, id: string): Promise<ParentRecord | undefined> {
  const [row] = await db.select({
    id: parent.idColumn, title: parent.titleColumn, ownerId: parent.ownerColumn, ownerGroupId: parent.ownerGroupColumn,
  }).from(parent.table).where(eq(parent.idColumn, id));
  return row as ParentRecord | undefined;
}
