import { CsrfField, Field, Select, type FieldErrors } from '../../../views/components/form';
import { FormError } from '../../../views/components/flash';
import { valueLabel } from '../../platform/core/value-labels';
import { countryChoices } from './countries';
import { HOSTING_KINDS, type AssetDataMapView, type ThirdPartyDpaView } from './schema';

export interface FormState {
  /** What was sent, kept on a refused form (by field; lists as arrays). */
  values?: Record<string, string | string[]>;
  errors?: FieldErrors;
  error?: string;
}

const HOSTING_LABELS: Record<(typeof HOSTING_KINDS)[number], string> = {
  on_premises: 'On premises', private_cloud: 'Private cloud', public_cloud: 'Public cloud', saas: 'Software as a service',
};
export const hostingLabel = (hosting: string | null) => (hosting ? HOSTING_LABELS[hosting as keyof typeof HOSTING_LABELS] ?? hosting : '—');

const text = (state: FormState, name: string, stored: string) => {
  const v = state.values?.[name];
  return typeof v === 'string' ? v : stored;
};
const list = (state: FormState, name: string, stored: readonly string[]) => {
  const v = state.values?.[name];
  return Array.isArray(v) ? v : typeof v === 'string' && state.values ? (v ? [v] : []) : [...stored];
};

/** The asset's data-map fields (data privacy's section on the asset page), with their form to those who may change them. */
export function AssetPrivacySection({ view, categoryChoices, csrfToken, canUpdate, state = {}, open = false }: {
  view: AssetDataMapView;
  /** The categories of personal data of Settings › Privacy categories: keys and names. */
  categoryChoices: readonly { value: string; label: string }[];
  csrfToken: string; canUpdate: boolean; state?: FormState; open?: boolean;
}): JSX.Element {
  const held = state.values ? state.values.personalDataHeld === 'yes' : view.personalDataHeld;
  const categories = list(state, 'dataCategories', view.dataCategories);
  const nameOf = (key: string) => categoryChoices.find((c) => c.value === key)?.label ?? valueLabel(key);
  // A value the asset holds stays offered (and ticked) even if the list no longer has it, so saving never drops it.
  const offered = [...categoryChoices, ...view.dataCategories.filter((key) => !categoryChoices.some((c) => c.value === key)).map((key) => ({ value: key, label: nameOf(key) }))];
  return (
    <section class="card" aria-labelledby="asset-privacy">
      <h2 id="asset-privacy">Privacy</h2>
      <dl class="details">
        <dt>Personal data held</dt><dd>{view.personalDataHeld ? 'Yes' : 'No'}</dd>
        <dt>Data categories</dt><dd safe>{view.dataCategories.map(nameOf).join(', ') || '—'}</dd>
        <dt>Location country</dt><dd safe>{view.locationCountryName || '—'}</dd>
        <dt>Retention</dt><dd safe>{view.retention || '—'}</dd>
        <dt>Hosting</dt><dd safe>{hostingLabel(view.hosting)}</dd>
      </dl>
      {canUpdate && (
        <details open={open}>
          <summary>Edit privacy fields</summary>
          <form method="post" action={`/data-privacy/assets/${view.assetId}/data-map`} class="form" novalidate>
            <FormError message={state.error} />
            <CsrfField token={csrfToken} />
            <Field label="Personal data held" name="personalDataHeld" error={state.errors?.personalDataHeld}>
              <Select name="personalDataHeld" options={[{ value: 'no', label: 'No' }, { value: 'yes', label: 'Yes' }]} selected={held ? 'yes' : 'no'} />
            </Field>
            <fieldset class={state.errors?.dataCategories ? 'field invalid' : 'field'} id="f-dataCategories">
              <legend>Data categories</legend>
              {state.errors?.dataCategories && <span class="error" role="alert" safe>{state.errors.dataCategories}</span>}
              <div class="checks">
                {offered.map((c) => (
                  <label><input type="checkbox" name="dataCategories" value={c.value} checked={categories.includes(c.value)} /> <span safe>{c.label}</span></label>
                ))}
              </div>
            </fieldset>
            <Field label="Location country" name="locationCountry" error={state.errors?.locationCountry} hint="The country where the data is stored">
              <Select name="locationCountry" options={[{ value: '', label: '—' }, ...countryChoices()]} selected={text(state, 'locationCountry', view.locationCountry ?? '')} />
            </Field>
            <Field label="Retention" name="retention" value={text(state, 'retention', view.retention)} error={state.errors?.retention} />
            <Field label="Hosting" name="hosting" error={state.errors?.hosting}>
              <Select name="hosting" options={[{ value: '', label: '—' }, ...HOSTING_KINDS.map((h) => ({ value: h, label: HOSTING_LABELS[h] }))]} selected={text(state, 'hosting', view.hosting ?? '')} />
            </Field>
            <p class="actions"><button type="submit">Save privacy fields</button></p>
          </form>
        </details>
      )}
    </section>
  );
}

/** The third party's DPA fields (data privacy's section on the third party page), with their form to those who may change them. */
export function ThirdPartyDpaSection({ view, csrfToken, canUpdate, state = {}, open = false }: {
  view: ThirdPartyDpaView; csrfToken: string; canUpdate: boolean; state?: FormState; open?: boolean;
}): JSX.Element {
  const chosen = list(state, 'subProcessorCountries', view.subProcessorCountries);
  return (
    <section class="card" aria-labelledby="third-party-dpa">
      <h2 id="third-party-dpa">Privacy: data processing agreement</h2>
      <dl class="details">
        <dt>DPA signed on</dt><dd safe>{view.signedOn ?? 'Not signed'}</dd>
        <dt>DPA version</dt><dd safe>{view.version || '—'}</dd>
        <dt>Sub-processors' locations</dt><dd safe>{view.subProcessorCountryNames.join(', ') || '—'}</dd>
      </dl>
      {canUpdate && (
        <details open={open}>
          <summary>Edit DPA fields</summary>
          <form method="post" action={`/data-privacy/third-parties/${view.thirdPartyId}/dpa`} class="form" novalidate>
            <FormError message={state.error} />
            <CsrfField token={csrfToken} />
            <Field label="DPA signed on" name="signedOn" type="date" value={text(state, 'signedOn', view.signedOn ?? '')} error={state.errors?.signedOn} />
            <Field label="DPA version" name="version" value={text(state, 'version', view.version)} error={state.errors?.version} maxlength={200} />
            <Field label="Sub-processors' locations" name="subProcessorCountries" error={state.errors?.subProcessorCountries} hint="Choose one or more countries">
              <select name="subProcessorCountries" id="f-subProcessorCountries" multiple="multiple" size="6">
                {countryChoices().map((o) => <option value={o.value} selected={chosen.includes(o.value)} safe>{o.label}</option>)}
              </select>
            </Field>
            <p class="actions"><button type="submit">Save DPA fields</button></p>
          </form>
        </details>
      )}
    </section>
  );
}

