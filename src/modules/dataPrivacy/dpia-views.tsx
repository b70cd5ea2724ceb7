import { CsrfField, Field, Select, type FieldErrors, type Option } from '../../../views/components/form';
import { FormError } from '../../../views/components/flash';
import { DPIA_CRITERIA, DPIA_CRITERIA_THRESHOLD, type DpiaView } from './schema';

/** A stored instant as the record pages show theirs: date and minute, UTC. */
const shownAt = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export interface DpiaSectionsProps {
  view: DpiaView;
  csrfToken: string;
  canReview: boolean;
  signedOffBy: string | null;
  /** The risks written from the DPIA, as the viewer may see them (href null: restricted or deleted). */
  risks: { title: string; href: string | null }[];
  /** The choices of the "Create a risk" form, when the viewer may write one from this DPIA. */
  riskChoices: RiskChoices | null;
}

export interface RiskChoices {
  classifications: Option[];
  likelihoods: Option[];
  impacts: Option[];
}

export interface RiskFormState {
  values?: Record<string, string>;
  errors?: FieldErrors;
  error?: string;
}

/** "Create a risk from this DPIA": the risk's rating; the title and description default to the DPIA's. */
export function RiskFromDpiaForm({ id, csrfToken, choices, state = {} }: { id: string; csrfToken: string; choices: RiskChoices; state?: RiskFormState }): JSX.Element {
  const v = state.values ?? {};
  return (
    <form method="post" action={`/data-privacy/dpias/${id}/risks`} class="form">
      <FormError message={state.error} />
      <CsrfField token={csrfToken} />
      <Field label="Risk title" name="title" value={v.title} error={state.errors?.title} hint={'Blank gives "DPIA: " and the DPIA\'s name'} />
      <Field label="Classification" name="classificationId" required error={state.errors?.classificationId}>
        <Select name="classificationId" selected={v.classificationId} options={choices.classifications} />
      </Field>
      <Field label="Inherent likelihood" name="inherentLikelihood" required error={state.errors?.inherentLikelihood}>
        <Select name="inherentLikelihood" selected={v.inherentLikelihood} options={choices.likelihoods} />
      </Field>
      <Field label="Inherent impact" name="inherentImpact" required error={state.errors?.inherentImpact}>
        <Select name="inherentImpact" selected={v.inherentImpact} options={choices.impacts} />
      </Field>
      <button type="submit">Create risk</button>
    </form>
  );
}

/** The DPIA's page below its fields: the decision with how it was reached, the sign-off, and the risks written from it. */
export function DpiaSections({ view, csrfToken, canReview, signedOffBy, risks, riskChoices }: DpiaSectionsProps): JSX.Element {
  const met = view.criteriaMet.length;
  const screening = `${met} of ${DPIA_CRITERIA.length} screening criteria met: ${view.screeningRequired ? 'a DPIA is required' : 'a DPIA is not required'} (${DPIA_CRITERIA_THRESHOLD} or more make it required).`;
  const decision = view.requiredOverride
    ? `Decision: ${view.required ? 'required' : 'not required'}, overriding the screening. Reason: ${view.overrideReason}`
    : `Decision: ${view.required ? 'required' : 'not required'}, as the screening says.`;
  const signedOff = view.status === 'signed_off';
  return (
    <>
      <section class="card" aria-labelledby="dpia-decision">
        <h2 id="dpia-decision">Decision</h2>
        <p safe>{screening}</p>
        <p safe>{decision}</p>
      </section>
      <section class="card" aria-labelledby="dpia-sign-off">
        <h2 id="dpia-sign-off">Sign-off</h2>
        <p safe>{signedOff && view.signedOffAt
          ? `Signed off by ${signedOffBy ?? '(unknown)'} on ${shownAt(view.signedOffAt)}. The DPIA is read-only until it is reopened.`
          : 'Draft: not signed off yet.'}</p>
        {canReview && (
          <form method="post" action={`/data-privacy/dpias/${view.id}/${signedOff ? 'reopen' : 'sign-off'}`} class="inline">
            <CsrfField token={csrfToken} />
            <button type="submit">{signedOff ? 'Reopen' : 'Sign off'}</button>
          </form>
        )}
      </section>
      <section class="card" aria-labelledby="dpia-risks">
        <h2 id="dpia-risks">Risks from this DPIA</h2>
        {risks.length === 0
          ? <p class="muted">No risks written from this DPIA yet.</p>
          : <ul>{risks.map((r) => <li>{r.href ? <a href={r.href} safe>{r.title}</a> : <span safe>{r.title}</span>}</li>)}</ul>}
        {riskChoices && <RiskFromDpiaForm id={view.id} csrfToken={csrfToken} choices={riskChoices} />}
      </section>
    </>
  );
}

