import type { AppContext } from '../../platform/http/context';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { listRecords } from '../../platform/records/records';
import { valueLabel } from '../../platform/core/value-labels';
import { processingActivityKind } from './service';

const PATH = '/data-privacy/processing-activities';

/**
 * "What links here" on a control's page: the processing activities naming the control among their technical and
 * organisational measures (Art. 32), those the viewer may read (dataPrivacy:read at their level); nothing to others.
 */
export async function controlProcessingActivities(app: AppContext, controlId: string, viewer: Actor): Promise<JSX.Element | null> {
  if (levelOf(viewer, 'dataPrivacy:read') === null) return null;
  const page = await listRecords(app.db, processingActivityKind, viewer, { controlId, pageSize: 200, sort: 'name' });
  return (
    <section class="card" aria-labelledby="control-processing-activities">
      <h2 id="control-processing-activities">Processing activities</h2>
      {page.rows.length === 0
        ? <p class="muted">No processing activity you may read names this control among its technical and organisational measures.</p>
        : (
          <>
            <p class="muted">Processing activities naming this control among their technical and organisational measures (GDPR Art. 32).</p>
            <ul>
              {page.rows.map((activity) => (
                <li>
                  <a href={`${PATH}/${activity.id}`} safe>{activity.name}</a>
                  <span safe>{` (${valueLabel(activity.role).toLowerCase()}, ${valueLabel(activity.status).toLowerCase()})`}</span>
                </li>
              ))}
            </ul>
            {page.total > page.rows.length && <p class="muted" safe>{`The first ${page.rows.length} of ${page.total}.`}</p>}
          </>
        )}
    </section>
  );
}
