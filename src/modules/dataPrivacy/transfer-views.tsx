import { valueLabel } from '../../platform/core/value-labels';
import { countryName } from './countries';
import type { TiaView, TransferView } from './schema';
import { safeguardText, TIA_PATH, TRANSFER_PATH } from './transfer-service';

/** A linked record as the viewer may see it: named and linked, or "(restricted)" / "(deleted)" without a link. */
export interface SeenLink { title: string; href: string | null }

const Linked = ({ link }: { link: SeenLink }) => (link.href ? <a href={link.href} safe>{link.title}</a> : <span safe>{link.title}</span>);

/** The transfers of a processing activity, on its page: destination by name, recipient, safeguard and the TIA relied on. */
export function ActivityTransfers({ activityId, transfers, recipients, tias, canCreate }: {
  activityId: string; transfers: TransferView[]; recipients: ReadonlyMap<string, SeenLink>; tias: ReadonlyMap<string, SeenLink>; canCreate: boolean;
}): JSX.Element {
  return (
    <section class="card" aria-labelledby="activity-transfers">
      <h2 id="activity-transfers">Transfers outside the EEA</h2>
      {transfers.length === 0
        ? <p class="muted">No transfers outside the EEA recorded for this processing activity.</p>
        : (
          <div class="table-wrap">
            <table class="data">
              <caption class="visually-hidden">Transfers outside the EEA</caption>
              <thead><tr><th scope="col">Transfer</th><th scope="col">Destination</th><th scope="col">Recipient</th><th scope="col">Safeguard</th><th scope="col">Transfer impact assessment</th></tr></thead>
              <tbody>
                {transfers.map((tr) => (
                  <tr>
                    <th scope="row"><a href={`${TRANSFER_PATH}/${tr.id}`} safe>{tr.name}</a></th>
                    <td safe>{countryName(tr.destinationCountry)}</td>
                    <td>{recipients.get(tr.recipientThirdPartyId) ? <Linked link={recipients.get(tr.recipientThirdPartyId)!} /> : '—'}</td>
                    <td safe>{safeguardText(tr)}</td>
                    <td>{tr.transferImpactAssessmentId && tias.get(tr.transferImpactAssessmentId) ? <Linked link={tias.get(tr.transferImpactAssessmentId)!} /> : 'None'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      {canCreate && <p><a class="button secondary" href={`${TRANSFER_PATH}/new?processingActivityId=${activityId}`}>New transfer</a></p>}
    </section>
  );
}

/** The transfer impact assessments kept on a third party, on its page (the data privacy module's section). */
export function ThirdPartyTias({ thirdPartyId, tias, canCreate }: { thirdPartyId: string; tias: TiaView[]; canCreate: boolean }): JSX.Element {
  return (
    <section class="card" aria-labelledby="third-party-tias">
      <h2 id="third-party-tias">Transfer impact assessments</h2>
      {tias.length === 0
        ? <p class="muted">No transfer impact assessments kept on this third party.</p>
        : (
          <ul>
            {tias.map((tia) => (
              <li>
                <a href={`${TIA_PATH}/${tia.id}`} safe>{tia.name}</a>
                <span safe>{` (assessed ${tia.assessedOn}; risk ${valueLabel(tia.riskFound).toLowerCase()}; ${valueLabel(tia.conclusion).toLowerCase()}${tia.nextReviewOn ? `; next review ${tia.nextReviewOn}` : ''})`}</span>
              </li>
            ))}
          </ul>
        )}
      {canCreate && <p><a class="button secondary" href={`${TIA_PATH}/new?thirdPartyId=${thirdPartyId}`}>New transfer impact assessment</a></p>}
    </section>
  );
}
