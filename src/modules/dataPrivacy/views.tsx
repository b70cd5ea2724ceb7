import { BareLayout } from '../../../views/layout';
import { FilterBar, matchingCount } from '../../../views/components/filter-bar';
import type { Option } from '../../../views/components/form';
import { valueOptions } from '../../platform/core/value-labels';
import { REGISTER_COLUMNS, type RegisterSection } from './register';
import { LEGAL_BASES, PROCESSING_ROLES } from './schema';

export const REGISTER_PATH = '/data-privacy/register';

/** The register's filters as the address holds them (blank: not set). */
export interface RegisterFilters {
  q: string;
  role: string;
  status: string;
  legalBasis: string;
  ownerId: string;
  label: string;
}

const isFiltered = (f: RegisterFilters) => Object.values(f).some(Boolean);

/** The register's address (or its CSV's, its printable page's) with the filters set, blanks left out. */
export function registerHref(f: RegisterFilters, path = REGISTER_PATH): string {
  const query = new URLSearchParams(Object.entries(f).filter(([, value]) => value !== '')).toString();
  return query ? `${path}?${query}` : path;
}

/** The register's entries of one role as a table, every Art. 30 column (the screen scrolls it; print wraps it). */
function RegisterTable({ section }: { section: RegisterSection }): JSX.Element {
  return (
    <div class="table-wrap">
      <table class="data">
        <caption class="visually-hidden" safe>{section.heading}</caption>
        <thead><tr>{REGISTER_COLUMNS.map((c) => <th scope="col" safe>{c.header}</th>)}</tr></thead>
        <tbody>
          {section.entries.map((entry) => (
            <tr>
              {REGISTER_COLUMNS.map((c) => (c.key === 'name'
                ? <th scope="row"><a href={`/data-privacy/processing-activities/${entry.id}`} safe>{entry.name}</a></th>
                : <td safe>{entry[c.key] || '—'}</td>))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RegisterSections({ sections }: { sections: readonly RegisterSection[] }): JSX.Element {
  return (
    <>
      {sections.map((section) => {
        const count = section.entries.length;
        return (
          <section class="card" aria-labelledby={`register-${section.role}`}>
            <h2 id={`register-${section.role}`} safe>{`${section.heading}: ${count} ${count === 1 ? 'activity' : 'activities'}`}</h2>
            {count === 0 ? <p class="muted">No processing activities in this role.</p> : <RegisterTable section={section} />}
          </section>
        );
      })}
    </>
  );
}

/** The register screen: the one filter bar, then both roles, with Export (the filters followed) one click away. */
export function RegisterScreen({ sections, filters, owners, labels }: {
  sections: readonly RegisterSection[]; filters: RegisterFilters; owners: Option[]; labels: Option[];
}): JSX.Element {
  const total = sections.reduce((n, s) => n + s.entries.length, 0);
  const filtered = isFiltered(filters);
  const count = `${total.toLocaleString('en')} ${total === 1 ? 'activity' : 'activities'}`;
  return (
    <>
      <p class="muted">
        The records of processing activities under GDPR Article 30 that you may read, grouped by role; retired activities are left out.
        Systems, processors and controls you may not read show as (restricted).
      </p>
      <FilterBar action={REGISTER_PATH} label="Filter the Article 30 register" target="#register-results" filtered={filtered}
        search={{ value: filters.q, label: 'Search names' }}
        filters={[
          { name: 'role', label: 'Role', selected: filters.role, options: valueOptions(PROCESSING_ROLES) },
          { name: 'status', label: 'Status', selected: filters.status, options: valueOptions(['draft', 'active']) },
          { name: 'legalBasis', label: 'Legal basis', selected: filters.legalBasis, options: valueOptions(LEGAL_BASES) },
          ...(labels.length ? [{ name: 'label', label: 'Label', selected: filters.label, options: labels }] : []),
          { name: 'ownerId', label: 'Owner', selected: filters.ownerId, options: owners, any: 'Anyone' },
        ]} />
      <section id="register-results" aria-live="polite" aria-label="Processing activities in the register">
        <p class="results-bar">
          <span class="muted" safe>{filtered ? matchingCount(count, total) : count}</span>
          {total > 0 && <a class="button secondary small" href={registerHref(filters, `${REGISTER_PATH}.csv`)} download="">Export CSV</a>}
        </p>
        {total === 0 && !filtered
          ? <p>No processing activities yet. <a href="/data-privacy/processing-activities/new">New processing activity</a></p>
          : total === 0 ? <p>No processing activities match these filters.</p> : <RegisterSections sections={sections} />}
      </section>
    </>
  );
}

/**
 * The printable register: outside the shell, with the date it was drawn up; each activity as a list of its Art. 30
 * entries (fifteen columns do not fit a printed page).
 */
export function RegisterPrint({ sections, drawnUp }: { sections: readonly RegisterSection[]; drawnUp: Date }): JSX.Element {
  return (
    <BareLayout title="Records of processing activities (GDPR Article 30)" wide>
      <>
        {/* The reader's day, by the page's script; UTC without it. */}
        <p>Drawn up <time datetime={drawnUp.toISOString()} data-local-day safe>{`${drawnUp.toISOString().slice(0, 10)} (UTC)`}</time>.</p>
        {sections.map((section) => (
          <section aria-labelledby={`print-${section.role}`}>
            <h2 id={`print-${section.role}`} safe>{`${section.heading}: ${section.entries.length} ${section.entries.length === 1 ? 'activity' : 'activities'}`}</h2>
            {section.entries.length === 0 && <p>No processing activities in this role.</p>}
            {section.entries.map((entry) => (
              <article class="card">
                <h3 safe>{entry.name}</h3>
                <dl class="details">
                  {REGISTER_COLUMNS.filter((c) => c.key !== 'name').map((c) => (
                    <>
                      <dt safe>{c.header}</dt>
                      <dd safe>{entry[c.key] || '—'}</dd>
                    </>
                  ))}
                </dl>
              </article>
            ))}
          </section>
        ))}
      </>
    </BareLayout>
  );
}
