import type { PackageScore } from '../schema';

export interface PackageBar {
  id: string;
  name: string;
  score: PackageScore | undefined;
}

/**
 * The compliance score of each package as a bar with its number beside it (the bar is drawn as SVG: the
 * Content-Security-Policy allows no inline style). The number and its words are the content; the bar repeats them.
 */
export function ComplianceScores({ packages, more }: { packages: PackageBar[]; more: number }): JSX.Element {
  if (packages.length === 0) return <p class="muted">No compliance packages you may read yet.</p>;
  return (
    <>
      <ul class="score-bars">
        {packages.map((p) => {
          const r = p.score?.requirements;
          const percent = r?.percentCompliant ?? null;
          const words = r && r.applicable > 0
            ? `${percent}% compliant: ${r.compliant} of ${r.applicable} applicable ${r.applicable === 1 ? 'requirement' : 'requirements'}${r.not_assessed ? `, ${r.not_assessed} not assessed` : ''}`
            : 'No applicable requirements';
          return (
            <li>
              <a href={`/compliance/packages/${p.id}`} safe>{p.name}</a>
              <svg class="score-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">
                <rect width="100" height="8" fill="#e3e7ed" />
                <rect width={String(percent ?? 0)} height="8" fill="#1e7a3c" />
              </svg>
              <span class="muted" safe>{words}</span>
            </li>
          );
        })}
      </ul>
      {more > 0 && <p><a href="/compliance/packages" safe>{`All packages (${more} more)`}</a></p>}
    </>
  );
}
