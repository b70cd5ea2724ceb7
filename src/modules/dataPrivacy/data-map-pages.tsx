import { Elysia } from 'elysia';
import { invalid } from '../../platform/core/errors';
import { runWrite, type AppContext } from '../../platform/http/context';
import { attempt, formList, formText, schemaProblems } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import { screenAuth } from '../../platform/http/screen-auth';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import { recordRows, recordType, type RecordSection, type RecordTypeDeclaration } from '../../platform/records/record-types';
import { fieldErrors } from '../../../views/components/form';
import { getAssetDataMap, getThirdPartyDpa, putAssetDataMap, putThirdPartyDpa } from './data-map-service';
import { AssetPrivacySection, ThirdPartyDpaSection, type FormState } from './data-map-views';
import { AssetDataMapInput, ThirdPartyDpaInput } from './schema';
import { thirdPartyTiaSection } from './linked-sections';
import { categoryChoices, personalDataCategoryList } from './categories';

/** Whether the viewer may change the data privacy fields of a host record they read (dataPrivacy:update at its level). */
const mayUpdate = (viewer: Actor, owned: { ownerId: string | null; ownerGroupId: string | null }) => canTouch(viewer, 'dataPrivacy:update', owned);

async function ownedOf(app: AppContext, kind: 'asset' | 'thirdParty', id: string) {
  const type = recordType(kind);
  return (await recordRows(app.db, type, [id])).get(id) ?? { ownerId: null, ownerGroupId: null };
}

/** The Privacy section of an asset's page: shown to readers of data privacy at the asset's level, hidden otherwise. */
export async function assetPrivacySection(app: AppContext, assetId: string, viewer: Actor, csrfToken: string): Promise<JSX.Element | null> {
  if (levelOf(viewer, 'dataPrivacy:read') === null) return null;
  const read = await attempt(() => getAssetDataMap(app.db, viewer, assetId));
  if (!read.ok) return null;
  const [owned, choices] = await Promise.all([ownedOf(app, 'asset', assetId), categoryChoices(app.db, personalDataCategoryList)]);
  return <AssetPrivacySection view={read.value} categoryChoices={choices} csrfToken={csrfToken} canUpdate={mayUpdate(viewer, owned)} />;
}

/** The DPA section of a third party's page: shown to readers of data privacy at the third party's level, hidden otherwise. */
export async function thirdPartyDpaSection(app: AppContext, thirdPartyId: string, viewer: Actor, csrfToken: string): Promise<JSX.Element | null> {
  if (levelOf(viewer, 'dataPrivacy:read') === null) return null;
  const read = await attempt(() => getThirdPartyDpa(app.db, viewer, thirdPartyId));
  if (!read.ok) return null;
  return <ThirdPartyDpaSection view={read.value} csrfToken={csrfToken} canUpdate={mayUpdate(viewer, await ownedOf(app, 'thirdParty', thirdPartyId))} />;
}

/** Data privacy's sections on a third party's page: its DPA fields and its transfer impact assessments. */
export function thirdPartyPrivacySections(thirdParty: RecordTypeDeclaration): RecordSection {
  const tias = thirdPartyTiaSection(thirdParty);
  return async (app, thirdPartyId, viewer, csrfToken) => {
    const [dpa, list] = await Promise.all([thirdPartyDpaSection(app, thirdPartyId, viewer, csrfToken), tias(app, thirdPartyId, viewer, csrfToken)]);
    return dpa || list ? <>{dpa}{list}</> : null;
  };
}

const refusedState = (values: Record<string, string | string[]>, problems: { field: string; message: string }[], message: string): FormState =>
  ({ values, errors: fieldErrors(problems), error: problems.length ? 'Please correct the fields marked below.' : message });

/** The forms of the Privacy sections: saved back to the host record's page, refused inside the app with what was sent kept. */
export const dataMapPages = (app: AppContext) =>
  new Elysia({ name: 'pages:data-privacy:data-map' })
    .use(screenAuth(app))
    .post('/data-privacy/assets/:id/data-map', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = {
        personalDataHeld: formText(body, 'personalDataHeld'), dataCategories: formList(body, 'dataCategories'),
        locationCountry: formText(body, 'locationCountry').trim(), retention: formText(body, 'retention'), hosting: formText(body, 'hosting').trim(),
      };
      const input = {
        personalDataHeld: values.personalDataHeld === 'yes', dataCategories: values.dataCategories,
        locationCountry: values.locationCountry || null, retention: values.retention, hosting: values.hosting || null,
      };
      const result = await attempt(() => {
        const problems = schemaProblems(AssetDataMapInput, input);
        if (problems.length) throw invalid(problems);
        return runWrite(app, (tx) => putAssetDataMap(tx, viewer, params.id, input as AssetDataMapInput));
      });
      const back = recordType('asset').href(params.id, null);
      if (result.ok) return redirect(`${back}?done=updated`, 303);
      set.status = result.error.status;
      const current = await attempt(() => getAssetDataMap(app.db, viewer, params.id));
      return renderScreen(headers, { title: 'Privacy fields not saved', viewer, csrfToken, active: 'assets' },
        <>
          <p><a href={back}>← Back to the asset</a></p>
          {current.ok
            ? <AssetPrivacySection view={current.value} categoryChoices={await categoryChoices(app.db, personalDataCategoryList)} csrfToken={csrfToken} canUpdate open
                state={refusedState(values, result.error.problems, result.error.message)} />
            : <div class="flash flash-error" role="alert" safe>{result.error.message}</div>}
        </>);
    }, { page: 'dataPrivacy:update' })
    .post('/data-privacy/third-parties/:id/dpa', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = { signedOn: formText(body, 'signedOn').trim(), version: formText(body, 'version'), subProcessorCountries: formList(body, 'subProcessorCountries') };
      const input = { signedOn: values.signedOn || null, version: values.version, subProcessorCountries: values.subProcessorCountries };
      const result = await attempt(() => {
        const problems = schemaProblems(ThirdPartyDpaInput, input);
        if (problems.length) throw invalid(problems);
        return runWrite(app, (tx) => putThirdPartyDpa(tx, viewer, params.id, input as ThirdPartyDpaInput));
      });
      const back = recordType('thirdParty').href(params.id, null);
      if (result.ok) return redirect(`${back}?done=updated`, 303);
      set.status = result.error.status;
      const current = await attempt(() => getThirdPartyDpa(app.db, viewer, params.id));
      return renderScreen(headers, { title: 'DPA fields not saved', viewer, csrfToken, active: 'third-parties' },
        <>
          <p><a href={back}>← Back to the third party</a></p>
          {current.ok
            ? <ThirdPartyDpaSection view={current.value} csrfToken={csrfToken} canUpdate open state={refusedState(values, result.error.problems, result.error.message)} />
            : <div class="flash flash-error" role="alert" safe>{result.error.message}</div>}
        </>);
    }, { page: 'dataPrivacy:update' });
