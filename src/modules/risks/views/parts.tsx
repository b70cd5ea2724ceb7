import { Swatch } from '../../../../views/components/table';

export interface Band {
  name: string;
  color: string;
}

/** A score with its band; the band's colour is data from Risk Settings (validated #rrggbb), shown as a swatch. */
export function ScoreBadge({ score, band }: { score: number | null; band: Band | null }): JSX.Element {
  if (score === null) return <span class="muted">—</span>;
  return (
    <span class="score">
      <span safe>{String(score)}</span>
      {band && (
        <>
          {' '}
          <span class="tag"><Swatch color={band.color} /><span safe>{band.name}</span></span>
        </>
      )}
    </span>
  );
}
