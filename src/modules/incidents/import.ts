import { incidentClassifications, incidents } from '../../../db/schema';
import { assetKind } from '../assets/service';
import { thirdPartyKind } from '../thirdParties/service';
import type { FieldProblem } from '../../platform/core/errors';
import type { NamedRecords } from '../../platform/csv/import-type';
import {
  defineImportType, keyedColumn, namedRecords, ownerColumn, ownerGroupColumn, readableNamed, readDate, readNamed, writeNamed,
} from '../../platform/csv/import-type';
import type { RecordKind } from '../../platform/records/records';
import { INCIDENT_STATUSES, IncidentCreate, IncidentUpdate } from './schema';
import { incidentKind } from './service';

interface IncidentLookups {
  classifications: NamedRecords;
  assets: NamedRecords;
  thirdParties: NamedRecords;
}

/**
 * The incident kind for a batch: the module's own check (title, opened_at, closing needs a resolution) runs unchanged;
 * only the existence of the classification, asset and third party is answered from the lookups loaded once per run,
 * instead of one query per row.
 */
function incidentImportKind(l: IncidentLookups): RecordKind<typeof incidents, IncidentCreate> {
  return {
    ...incidentKind,
    defaults: incidentKind.defaults,
    async check(db, c, before, actor) {
      const problems: FieldProblem[] = await incidentKind.check!(db, { ...c, classificationId: null, assetId: null, thirdPartyId: null }, before, actor);
      if (c.classificationId && !l.classifications.nameOf.has(c.classificationId)) problems.push({ field: 'classificationId', message: 'no such incident classification' });
      // Lookups hold only records the importer may read; a link left as it was is not judged again (requireReadableLink).
      if (c.assetId && c.assetId !== before?.assetId && !l.assets.nameOf.has(c.assetId)) problems.push({ field: 'assetId', message: 'no such asset' });
      if (c.thirdPartyId && c.thirdPartyId !== before?.thirdPartyId && !l.thirdParties.nameOf.has(c.thirdPartyId)) {
        problems.push({ field: 'thirdPartyId', message: 'no such third party' });
      }
      return problems;
    },
  };
}

/** Incidents CSV: classification, asset and third party by name (or id); closing needs a resolution (an error row on resolution). */
export const incidentImport = defineImportType<IncidentLookups>({
  area: 'incidents',
  module: 'incidents',
  title: 'Incidents',
  Create: IncidentCreate,
  Update: IncidentUpdate,
  customFields: true,
  columns: [
    { name: 'title', field: 'title', required: true, help: 'text, up to 300 characters' },
    { name: 'description', field: 'description', help: 'text' },
    {
      name: 'classification', field: 'classificationId', help: 'name (or id) of an incident classification (Settings)', blankOnUpdate: 'keep',
      read: (text, l) => readNamed(l.classifications, 'incident classification', text), write: (value, l) => writeNamed(l.classifications, value),
    },
    { name: 'opened_at', field: 'openedAt', help: 'date YYYY-MM-DD (today when blank on a new record)', blankOnUpdate: 'keep', read: readDate },
    {
      name: 'asset', field: 'assetId', help: 'name (or id) of an asset', blankOnUpdate: 'clear',
      read: (text, l) => readNamed(l.assets, 'asset', text), write: (value, l) => writeNamed(l.assets, value),
    },
    {
      name: 'third_party', field: 'thirdPartyId', help: 'name (or id) of a third party', blankOnUpdate: 'clear',
      read: (text, l) => readNamed(l.thirdParties, 'third party', text), write: (value, l) => writeNamed(l.thirdParties, value),
    },
    ownerColumn(),
    ownerGroupColumn(),
    keyedColumn(INCIDENT_STATUSES, {
      name: 'status', field: 'status', note: '(blank gives Open; Closed needs a resolution)', blankOnUpdate: 'keep',
    }),
    { name: 'resolution', field: 'resolution', help: 'text; required to close', blankOnUpdate: 'clear' },
  ],
  async prepare(db, actor) {
    const [classRows, assetRecords, partyRecords] = await Promise.all([
      db.select({ id: incidentClassifications.id, name: incidentClassifications.name }).from(incidentClassifications),
      readableNamed(db, actor, assetKind),
      readableNamed(db, actor, thirdPartyKind),
    ]);
    return { classifications: namedRecords(classRows), assets: assetRecords, thirdParties: partyRecords };
  },
  kind: (l) => incidentImportKind(l),
});
