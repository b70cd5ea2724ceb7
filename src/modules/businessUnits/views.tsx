import type { BusinessUnitTreeEntry } from './schema';

export const UnitLinks = ({ units, empty }: { units: { id: string; name: string }[]; empty: string }) =>
  units.length === 0
    ? <p class="muted" safe>{empty}</p>
    : <ul>{units.map((u) => <li><a href={`/business-units/${u.id}`} safe>{u.name}</a></li>)}</ul>;

/** The hierarchy as nested lists, built from the depth-first entries. */
export function TreeList({ entries }: { entries: BusinessUnitTreeEntry[] }): JSX.Element {
  const below = (parentId: string | null, depth: number): JSX.Element => {
    const level = entries.filter((e) => e.depth === depth && (depth === 0 || e.parentId === parentId));
    return (
      <ul class="tree">
        {level.map((e) => (
          <li>
            <a href={`/business-units/${e.id}`} safe>{e.name}</a>
            {entries.some((c) => c.parentId === e.id && c.depth === depth + 1) && below(e.id, depth + 1)}
          </li>
        ))}
      </ul>
    );
  };
  return entries.length === 0 ? <p class="muted">No business units yet.</p> : below(null, 0);
}
