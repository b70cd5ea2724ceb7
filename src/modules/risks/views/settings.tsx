import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field, type FieldErrors } from '../../../../views/components/form';
import { DataTable, Swatch, Text } from '../../../../views/components/table';

/** A level row as typed in the editor (strings, so a refused save shows exactly what was entered). */
export interface LevelRow {
  value: string;
  name: string;
  description: string;
  remove: boolean;
}

export interface BandRow {
  name: string;
  minScore: string;
  maxScore: string;
  color: string;
  remove: boolean;
}

export interface ScaleForm {
  likelihood: LevelRow[];
  impact: LevelRow[];
  /** Score per `<likelihood>x<impact>`, as typed. */
  cells: Record<string, string>;
  bands: BandRow[];
}

export const cellKey = (likelihood: number | string, impact: number | string) => `${likelihood}x${impact}`;

const DONE: Record<string, string> = {
  'scale-saved': 'Risk scale saved.',
};

export interface RiskSettingsProps {
  csrfToken: string;
  /** The Classifications section (a name list, src/platform/name-lists), with its own outcome or refusal. */
  classifications: JSX.Element;
  scale: ScaleForm;
  canCreate: boolean;
  canUpdate: boolean;
  done?: string;
  /** A refusal of the scale: the general message and each problem by input name. */
  scaleError?: string;
  scaleErrors?: FieldErrors;
  /** Problems that belong to no single input (a missing cell, for example). */
  scaleProblems?: string[];
  /** True when the editor shows unsaved changes (after "Update matrix"). */
  preview?: boolean;
}

function LevelRows({ axis, rows, errors, disabled }: { axis: 'likelihood' | 'impact'; rows: LevelRow[]; errors: FieldErrors; disabled: boolean }): JSX.Element {
  const all = [...rows, { value: '', name: '', description: '', remove: false }];
  const input = (i: number, key: 'value' | 'name' | 'description', value: string, label: string, extra: Record<string, unknown> = {}) => {
    const name = `${axis}.${i}.${key}`;
    return (
      <td>
        <input type={key === 'value' ? 'number' : 'text'} name={name} value={value} aria-label={label} disabled={disabled}
          aria-invalid={errors[name] ? 'true' : undefined} {...extra} />
        {errors[name] && <span class="error" role="alert" safe>{errors[name]}</span>}
      </td>
    );
  };
  return (
    <div class="table-wrap">
      <table class="data">
        <caption class="muted" safe>{axis === 'likelihood' ? 'Likelihood levels' : 'Impact levels'}</caption>
        <thead><tr><th scope="col">Value</th><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Remove</th></tr></thead>
        <tbody>
          {all.map((row, i) => {
            const isNew = i === rows.length;
            const label = isNew ? `new ${axis} level` : `${axis} level ${row.value}`;
            return (
              <tr>
                {input(i, 'value', row.value, `Value of ${label}`, { min: 1, max: 100, class: 'short' })}
                {input(i, 'name', row.name, `Name of ${label}`, { maxlength: 100 })}
                {input(i, 'description', row.description, `Description of ${label}`, { maxlength: 2000 })}
                <td>
                  {isNew
                    ? <span class="muted">new</span>
                    : <input type="checkbox" name={`${axis}.${i}.remove`} value="1" checked={row.remove} disabled={disabled} aria-label={`Remove ${label}`} />}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The band a score falls in, for colouring the matrix as the editor shows it. */
function bandColor(bands: BandRow[], score: string): string | undefined {
  const n = Number(score);
  if (score === '' || !Number.isFinite(n)) return undefined;
  const band = bands.find((b) => !b.remove && Number(b.minScore) <= n && n <= Number(b.maxScore));
  return band && /^#[0-9a-fA-F]{6}$/.test(band.color) ? band.color : undefined;
}

function Matrix({ scale, disabled }: { scale: ScaleForm; disabled: boolean }): JSX.Element {
  const levels = (rows: LevelRow[]) => rows.filter((r) => !r.remove && /^\d+$/.test(r.value.trim()))
    .map((r) => ({ value: Number(r.value), name: r.name }))
    .sort((a, b) => a.value - b.value);
  const likelihood = levels(scale.likelihood).reverse();
  const impact = levels(scale.impact);
  return (
    <div class="table-wrap">
      <table class="data matrix">
        <caption class="muted">Score for each likelihood (rows) × impact (columns)</caption>
        <thead>
          <tr>
            <th scope="col">Likelihood \ Impact</th>
            {impact.map((m) => <th scope="col" safe>{`${m.value} ${m.name}`}</th>)}
          </tr>
        </thead>
        <tbody>
          {likelihood.map((l) => (
            <tr>
              <th scope="row" safe>{`${l.value} ${l.name}`}</th>
              {impact.map((m) => {
                const score = scale.cells[cellKey(l.value, m.value)] ?? '';
                const color = bandColor(scale.bands, score);
                return (
                  <td class="matrix-cell">
                    {color && <Swatch color={color} />}
                    <input type="number" class="short" name={`cell.${l.value}.${m.value}`} value={score} min={0} max={10000}
                      disabled={disabled} aria-label={`Score for likelihood ${l.value} and impact ${m.value}`} />
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BandRows({ rows, errors, disabled }: { rows: BandRow[]; errors: FieldErrors; disabled: boolean }): JSX.Element {
  const all = [...rows, { name: '', minScore: '', maxScore: '', color: '#888888', remove: false }];
  const input = (i: number, key: keyof Omit<BandRow, 'remove'>, value: string, label: string, type: string) => {
    const name = `bands.${i}.${key}`;
    return (
      <td>
        <input type={type} name={name} value={value} aria-label={label} disabled={disabled} aria-invalid={errors[name] ? 'true' : undefined}
          class={type === 'number' ? 'short' : undefined} />
        {errors[name] && <span class="error" role="alert" safe>{errors[name]}</span>}
      </td>
    );
  };
  return (
    <div class="table-wrap">
      <table class="data">
        <caption class="muted">Bands (score ranges must not overlap; a score outside every band shows no band)</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">From score</th><th scope="col">To score</th><th scope="col">Colour</th><th scope="col">Remove</th></tr></thead>
        <tbody>
          {all.map((row, i) => {
            const label = i === rows.length ? 'new band' : `band ${row.name}`;
            return (
              <tr>
                {input(i, 'name', row.name, `Name of ${label}`, 'text')}
                {input(i, 'minScore', row.minScore, `Lowest score of ${label}`, 'number')}
                {input(i, 'maxScore', row.maxScore, `Highest score of ${label}`, 'number')}
                {input(i, 'color', row.color, `Colour of ${label}`, 'color')}
                <td>
                  {i === rows.length
                    ? <span class="muted">new</span>
                    : <input type="checkbox" name={`bands.${i}.remove`} value="1" checked={row.remove} disabled={disabled} aria-label={`Remove ${label}`} />}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function ScaleSection(props: RiskSettingsProps): JSX.Element {
  const errors = props.scaleErrors ?? {};
  const disabled = !props.canUpdate;
  return (
    <section id="scale">
      <h2>Risk scale</h2>
      <p class="muted">
        Levels are kept by value: risks rated on a level keep their rating when it is renamed, and a level that risks still use
        cannot be removed. After adding or removing a level, choose Update matrix to fill in its scores, then Save scale.
      </p>
      {props.preview && <Flash kind="info" message="Not saved yet: fill in any empty scores, then choose Save scale." />}
      <Flash kind="error" message={props.scaleError} />
      {props.scaleProblems && props.scaleProblems.length > 0 && (
        <ul class="flash flash-error">{props.scaleProblems.map((p) => <li safe>{p}</li>)}</ul>
      )}
      <form method="post" action="/settings/risks/scale" class="card">
        <CsrfField token={props.csrfToken} />
        <LevelRows axis="likelihood" rows={props.scale.likelihood} errors={errors} disabled={disabled} />
        <LevelRows axis="impact" rows={props.scale.impact} errors={errors} disabled={disabled} />
        <Matrix scale={props.scale} disabled={disabled} />
        <BandRows rows={props.scale.bands} errors={errors} disabled={disabled} />
        {props.canUpdate && (
          <div class="actions">
            <button type="submit" name="intent" value="save">Save scale</button>
            <button type="submit" name="intent" value="preview" class="secondary">Update matrix</button>
            <a href="/settings/risks#scale">Discard changes</a>
          </div>
        )}
      </form>
    </section>
  );
}

export function RiskSettings(props: RiskSettingsProps): JSX.Element {
  return (
    <>
      <Flash kind="success" message={props.done ? DONE[props.done] : undefined} />
      {props.classifications}
      <ScaleSection {...props} />
    </>
  );
}
