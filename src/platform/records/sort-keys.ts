import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { groups, users } from '../../../db/schema';

/**
 * Sort keys a register's `sortable` shares (docs/screens.md, "Sorting a register"). Every list query joins the
 * record's owner (`users`) and owner group (`groups`), so these read them without a join of their own.
 */

/**
 * The owner as the list shows it: the person's name, else the owner group's, without regard to case ("alice" beside
 * "Bob"). Records owned by no one sort last ascending, first descending, as blanks do in every column.
 */
export const ownerNameSort: SQL = sql`lower(coalesce(${users.name}, ${groups.name}))`;

/**
 * A stored key in its list's defined order (a status: planned, active, retired), not the keys' alphabetical order;
 * a value outside the list sorts after them. The positions are literals (numbers), the values bound parameters.
 */
export function inDefinedOrder(column: AnyColumn | SQL, values: readonly string[]): SQL {
  const whens = values.map((value, i) => sql`when ${value} then ${sql.raw(String(i))}`);
  return sql`(case ${column} ${sql.join(whens, sql` `)} else ${sql.raw(String(values.length))} end)`;
}
