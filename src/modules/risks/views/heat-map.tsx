import { Swatch } from '../../../../views/components/table';
import { bandHref, cellHref, type HeatMapCell, type RiskHeatMap, type Side } from '../dashboard';

/** "1 risk", "3 risks". */
const risksText = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'risk' : 'risks'}`;

/** Relative luminance of a #rrggbb colour (WCAG 2.1). */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/**
 * Text on a band's colour: black or white, whichever contrasts more. One of the two always reaches 4.5:1 (the better
 * of them is at least √21 ≈ 4.58), so any colour Risk settings allow stays readable.
 */
export const textOn = (hex: string): 'on-light' | 'on-dark' => {
  if (!/^#[0-9a-f]{6}$/i.test(hex)) return 'on-light';
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? 'on-light' : 'on-dark';
};

/** A cell: its band's colour drawn as SVG (the Content-Security-Policy allows no inline style), its count and band as text. */
function Cell({ cell, side, likelihood, impact }: { cell: HeatMapCell; side: Side; likelihood: string; impact: string }): JSX.Element {
  const colour = cell.band?.color ?? '#ffffff';
  // The count is what shows; the words after it give a screen reader (and a link read out of the table) the cell.
  const described = ` ${cell.count === 1 ? 'risk' : 'risks'} at likelihood ${likelihood} and impact ${impact}${cell.band ? `, band ${cell.band.name}` : ''}${cell.score === null ? '' : `, score ${cell.score}`}`;
  const content = <><span class="heat-count" safe>{String(cell.count)}</span><span class="visually-hidden" safe>{described}</span></>;
  return (
    <td class={`heat-cell ${textOn(colour)}`}>
      <svg class="heat-bg" viewBox="0 0 1 1" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect width="1" height="1" fill={colour} /></svg>
      {cell.count > 0 ? <a href={cellHref(side, cell.likelihood, cell.impact)}>{content}</a> : <span>{content}</span>}
      {cell.band && <span class="heat-band" aria-hidden="true" safe>{cell.band.name}</span>}
    </td>
  );
}

/** One side of the map as a real table: likelihood rows (highest first), impact columns, a caption saying what it counts. */
function HeatTable({ map, side }: { map: RiskHeatMap; side: Side }): JSX.Element {
  const cells = side === 'inherent' ? map.inherent : map.residual;
  const level = (l: { value: number; name: string }) => `${l.value} ${l.name}`;
  const counted = cells.reduce((sum, c) => sum + c.count, 0);
  return (
    <div class="heat-map">
      <table class="heat">
        <caption>
          <strong>{side === 'inherent' ? 'Inherent' : 'Residual'}</strong>{' '}
          <span class="muted" safe>{`${risksText(counted)}; likelihood by row, impact by column`}</span>
        </caption>
        <thead>
          <tr>
            <th scope="col"><span class="visually-hidden">Likelihood</span><span aria-hidden="true">L \ I</span></th>
            {map.impact.map((i) => <th scope="col" safe>{level(i)}</th>)}
          </tr>
        </thead>
        <tbody>
          {map.likelihood.map((l) => (
            <tr>
              <th scope="row" safe>{level(l)}</th>
              {map.impact.map((i) => (
                <Cell cell={cells.find((c) => c.likelihood === l.value && c.impact === i.value)!} side={side} likelihood={level(l)} impact={level(i)} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The heat map: inherent and residual side by side, each cell linking to the open risks in it. */
export function RiskHeatMapView({ map }: { map: RiskHeatMap }): JSX.Element {
  if (map.likelihood.length === 0 || map.impact.length === 0) {
    return <p class="muted">The risk scale has no levels yet (Settings › Risk settings).</p>;
  }
  return (
    <>
      <p class="muted" safe>{`Open risks you may read: ${risksText(map.total)}. Each cell counts the risks at that likelihood and impact; its colour and word are the appetite band of its score.`}</p>
      <div class="heat-maps">
        <HeatTable map={map} side="inherent" />
        <HeatTable map={map} side="residual" />
      </div>
      {map.residualUnrated > 0 && <p class="muted" safe>{`${risksText(map.residualUnrated)} without a residual rating ${map.residualUnrated === 1 ? 'is' : 'are'} not on the residual map.`}</p>}
    </>
  );
}

/** Open risks per appetite band, inherent and residual, each count linking to the list of those risks. */
export function RisksByBand({ map }: { map: RiskHeatMap }): JSX.Element {
  if (map.bands.length === 0) return <p class="muted">No appetite bands are configured (Settings › Risk settings).</p>;
  const countLink = (side: Side, band: string, n: number) => (n > 0
    ? <a href={bandHref(side, band)}><span safe>{String(n)}</span><span class="visually-hidden" safe>{` ${n === 1 ? 'risk' : 'risks'}, ${side} band ${band}`}</span></a>
    : <span>0</span>);
  return (
    <div class="table-wrap">
      <table class="data">
        <caption class="visually-hidden">Open risks per appetite band, inherent and residual</caption>
        <thead><tr><th scope="col">Band</th><th scope="col">Scores</th><th scope="col" class="num">Inherent</th><th scope="col" class="num">Residual</th></tr></thead>
        <tbody>
          {map.bands.slice().reverse().map((b) => (
            <tr>
              <th scope="row"><Swatch color={b.color} /><span safe>{b.name}</span></th>
              <td safe>{b.minScore === b.maxScore ? String(b.minScore) : `${b.minScore}–${b.maxScore}`}</td>
              <td class="num">{countLink('inherent', b.name, b.inherent)}</td>
              <td class="num">{countLink('residual', b.name, b.residual)}</td>
            </tr>
          ))}
          {map.residualUnrated > 0 && (
            <tr><th scope="row">Not rated</th><td>—</td><td class="num">—</td><td class="num" safe>{String(map.residualUnrated)}</td></tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
