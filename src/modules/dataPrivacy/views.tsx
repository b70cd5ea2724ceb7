import { BareLayout } from '../../../views/layout';
import { REGISTER_COLUMNS, type RegisterSection } from './register';

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

/** The register screen: both roles, with the printable page and the CSV download one click away. */
export function RegisterScreen({ sections }: { sections: readonly RegisterSection[] }): JSX.Element {
  const total = sections.reduce((n, s) => n + s.entries.length, 0);
  return (
    <>
      <p class="muted">
        The records of processing activities under GDPR Article 30 that you may read, grouped by role; retired activities are left out.
        Systems, processors and controls you may not read show as (restricted).
      </p>
      {total === 0
        ? <p>No processing activities yet. <a href="/data-privacy/processing-activities/new">New processing activity</a></p>
        : <RegisterSections sections={sections} />}
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
