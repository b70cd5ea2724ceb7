import { eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { exceptions, policies, risks } from '../../../db/schema';
import type { Module } from '../../platform/permissions';

/**
 * The kinds of record an exception can belong to. Each kind names its module (whose read, update, delete and review
 * rights govern its exceptions), its table and the exceptions column pointing at it. Adding compliance requirements
 * later means a column and check in db/schema/exceptions.ts and one entry here.
 */
export interface ExceptionParent {
  type: 'risk' | 'policy';
  module: Module;
  /** 'Risk', for messages. */
  label: string;
  /** Path under /api/v1. */
  path: string;
  /** Stored in the Audit Log and History. */
  recordType: string;
  /** The exceptions column pointing at the parent. */
  column: 'riskId' | 'policyId';
  table: PgTable;
  idColumn: PgColumn;
  titleColumn: PgColumn;
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

export const EXCEPTION_PARENTS: readonly ExceptionParent[] = [riskParent, policyParent];

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
