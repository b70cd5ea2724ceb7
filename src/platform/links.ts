import type { DbOrTx } from '../../db/client';
import { requirePermission, type Actor, type Permission } from './permissions';
import { exists, getRecord, type OwnedTable, type RecordKind } from './records';

/**
 * A link from one record to a record of another module (an incident's asset, a risk's business unit). Spec Bearer
 * rule 4: the request needs that module's read scope and right too (403 without), and an existing linked record must
 * be one the actor can read (404 otherwise, audited). Checked only when the link is set or changed,
 * so editing a record never fails on a link someone else made.
 */
export async function requireReadableLink<T extends OwnedTable>(
  db: DbOrTx, actor: Actor, kind: RecordKind<T, Record<string, unknown>>, id: string | null | undefined, previous?: string | null,
): Promise<void> {
  if (!id || id === previous) return;
  requirePermission(actor, `${kind.module}:read` as Permission);
  // A record that does not exist at all is the caller's field mistake (400, reported by the module's own check).
  if (!(await exists(db, kind.table, (kind.table as OwnedTable).id, id))) return;
  await getRecord(db, kind, actor, id);
}
