import type { BusinessUnitTreeEntry } from './schema';

const UnitLinks = ({ units, empty }: { units: { id: string; name: string }[]; empty: string }) =>
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

/** The unit's place in the hierarchy: its path and its child units (the assets module adds the unit's assets). */
export function StructureSection({ self, childUnits }: { self: BusinessUnitTreeEntry | undefined; childUnits: BusinessUnitTreeEntry[] }): JSX.Element {
  return (
    <section>
      <h2>Structure</h2>
      <p safe>{self && self.path.length > 1 ? `Path: ${self.path.join(' › ')}` : 'A top-level unit.'}</p>
      <h3>Child units</h3>
      <UnitLinks units={childUnits} empty="No child units." />
      <p><a href="/business-units/tree">Show the whole hierarchy</a></p>
    </section>
  );
}
