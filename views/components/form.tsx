import Html from '@kitajs/html';

/** Field name → message, for inline errors after a refused form. */
export type FieldErrors = Record<string, string>;

/** Problems of a refused form, one per field (the platform's FieldProblem has this shape). */
export function fieldErrors(problems: readonly { field: string; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const { field, message } of problems) errors[field] ??= message;
  return errors;
}

/** One problem of a refused form as its error summary lists it: the message and where it links (the field's input). */
export interface SummaryProblem {
  message: string;
  /** The field the problem is about; a problem with no field on the form is listed without a link. */
  href?: string;
}

/** A refused form's field errors as summary problems, each linking to its field's input (`f-<name>`, as Field names it). */
export const fieldProblems = (errors: FieldErrors): SummaryProblem[] =>
  Object.entries(errors).map(([field, message]) => ({ message, href: `#f-${field}` }));

/**
 * The error summary at the top of a refused form (the GOV.UK pattern): a heading, then every problem linking to the
 * field it is about, announced as soon as the page shows (role alert). Every form listing its problems uses this one,
 * so they read and behave alike; nothing is rendered when there is no problem.
 */
export function ErrorSummary({ problems, title = 'There is a problem', id = 'error-summary' }: {
  problems: readonly SummaryProblem[]; title?: string; id?: string;
}): JSX.Element {
  if (problems.length === 0) return '';
  return (
    <div class="error-summary" role="alert" aria-labelledby={`${id}-title`} id={id}>
      <h2 id={`${id}-title`} safe>{title}</h2>
      <ul>{problems.map((p) => <li>{p.href ? <a href={p.href} safe>{p.message}</a> : <span safe>{p.message}</span>}</li>)}</ul>
    </div>
  );
}

export const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

export interface FieldProps {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password' | 'date' | 'number' | 'textarea';
  value?: string | number | null;
  error?: string;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  maxlength?: number;
  min?: number;
  max?: number;
  /** Replaces the input (a select, for example); the label still points at `name`. */
  children?: JSX.Element;
  /** The input's id where one page holds two forms with the same field names (`f-<name>` otherwise). */
  id?: string;
  /**
   * A date field defaulting to today: the server's today (UTC), which the page's script replaces with today in the
   * reader's own time zone while the field still holds it (people have no stored zone; their browser knows it).
   */
  today?: string;
}

/** A labelled input with its hint and inline error, linked by aria-describedby so screen readers announce both. */
export function Field(props: FieldProps): JSX.Element {
  const id = props.id ?? `f-${props.name}`;
  const describedBy = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id, name: props.name, required: props.required, 'aria-invalid': props.error ? 'true' : undefined, 'aria-describedby': describedBy,
  };
  const value = props.value === null || props.value === undefined ? '' : String(props.value);
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={id} safe>{props.label}</label>
      {props.children ?? (props.type === 'textarea'
        ? <textarea {...common} maxlength={props.maxlength} safe>{value}</textarea>
        : <input {...common} type={props.type ?? 'text'} value={value} autocomplete={props.autocomplete}
            maxlength={props.maxlength} min={props.min} max={props.max} data-today={props.today} />)}
      {props.hint && <span class="hint" id={`${id}-hint`} safe>{props.hint}</span>}
      {props.error && <span class="error" id={`${id}-error`} role="alert" safe>{props.error}</span>}
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

/** A select; `label` names it for assistive technology where no visible label points at it (a select in a table row). */
export function Select({ name, options, selected, id, required, label }: {
  name: string; options: Option[]; selected?: string; id?: string; required?: boolean; label?: string;
}): JSX.Element {
  return (
    <select name={name} id={id ?? `f-${name}`} required={required} aria-label={label}>
      {options.map((o) => <option value={o.value} selected={o.value === selected} safe>{o.label}</option>)}
    </select>
  );
}

/** Escapes a value for places outside JSX children (kept here so pages never hand-roll escaping). */
export const esc = (value: string) => Html.escapeHtml(value);
