import type { RiskView } from '../schema';
import type { AuditEntry } from '../../../platform/audit/audit';
import type { HistoryView } from '../../../platform/audit/history';
import { Flash } from '../../../../views/components/flash';
import { CsrfField } from '../../../../views/components/form';
import { DataTable, Text, When } from '../../../../views/components/table';
import { ScoreBadge, STATUS_LABELS } from './parts';

const DONE: Record<string, string> = { created: 'Risk created.', updated: 'Risk updated.' };

/** Turns stored ids into the names people know; anything else is shown as it was stored. */
export type ValueNamer = (field: string, value: unknown) => string;

const FIELD_LABELS: Record<string, string> = {
  title: 'Title', description: 'Description', classificationId: 'Classification', inherentLikelihood: 'Inherent likelihood',
  inherentImpact: 'Inherent impact', residualLikelihood: 'Residual likelihood', residualImpact: 'Residual impact',
  ownerId: 'Owner', ownerGroupId: 'Owner group', reviewFrequencyMonths: 'Review every (months)', status: 'Status',
  assetId: 'Asset', businessUnitId: 'Business unit',
};

function Changes({ changes, name, labels }: { changes: HistoryView['changes']; name: ValueNamer; labels?: Record<string, string> }): JSX.Element {
  const entries = Object.entries(changes);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="changes">
      {entries.map(([field, { before, after }]) => (
        <li>
          <strong safe>{FIELD_LABELS[field] ?? labels?.[field] ?? field}</strong>
          {': '}
          <span safe>{name(field, before)}</span>
          {' → '}
          <span safe>{name(field, after)}</span>
        </li>
      ))}
    </ul>
  );
}

export interface RiskDetailProps {
  risk: RiskView;
  history: HistoryView[];
  audit: AuditEntry[];
  name: ValueNamer;
  canUpdate: boolean;
  canDelete: boolean;
  done?: string;
  /** Sections other modules add to a risk's page (its evidence). */
  sections?: JSX.Element;
  /** Custom field values as shown (label, value), and labels for their History entries (`customFields.<key>`). */
  customFields?: { label: string; value: string }[];
  fieldLabels?: Record<string, string>;
}

export function RiskDetail({ risk, history, audit, name, canUpdate, canDelete, done, customFields, fieldLabels, sections }: RiskDetailProps): JSX.Element {
  const level = (l: { value: number; name: string } | null) => (l ? `${l.value} – ${l.name}` : 'Not rated');
  return (
    <>
      <Flash kind="success" message={done ? DONE[done] : undefined} />
      <p class="actions">
        <a href="/risks">← All risks</a>
        <a href={`/risks/${risk.id}/treatments`}>Treatments, reviews and exceptions</a>
        {canUpdate && <a class="button" href={`/risks/${risk.id}/edit`}>Edit</a>}
        {canDelete && <a class="button danger" href={`/risks/${risk.id}/delete`}>Delete</a>}
      </p>
      <dl class="card details">
        <dt>Classification</dt><dd safe>{risk.classification.name}</dd>
        <dt>Status</dt><dd safe>{STATUS_LABELS[risk.status] ?? risk.status}</dd>
        <dt>Inherent</dt>
        <dd>
          <span safe>{`${level(risk.inherentLikelihood)} likelihood × ${level(risk.inherentImpact)} impact`}</span>
          {' = '}<ScoreBadge score={risk.inherentScore} band={risk.inherentBand} />
        </dd>
        <dt>Residual</dt>
        <dd>
          {risk.residualLikelihood && risk.residualImpact
            ? <><span safe>{`${level(risk.residualLikelihood)} likelihood × ${level(risk.residualImpact)} impact`}</span>
              {' = '}<ScoreBadge score={risk.residualScore} band={risk.residualBand} /></>
            : <span class="muted">Not rated</span>}
        </dd>
        <dt>Owner</dt><dd safe>{risk.owner ? `${risk.owner.name} <${risk.owner.email}>` : '—'}</dd>
        <dt>Owner group</dt><dd safe>{risk.ownerGroup?.name ?? '—'}</dd>
        <dt>Review every</dt><dd safe>{`${risk.reviewFrequencyMonths} months`}</dd>
        {(customFields ?? []).map((c) => <><dt safe>{c.label}</dt><dd class="prewrap" safe>{c.value}</dd></>)}
        <dt>Created</dt><dd><When value={risk.createdAt} /></dd>
        <dt>Updated</dt><dd><When value={risk.updatedAt} /></dd>
      </dl>
      {risk.description && <div class="card"><h2>Description</h2><p class="pre-wrap" safe>{risk.description}</p></div>}
      {sections}
      <h2 id="history">History</h2>
      <DataTable<HistoryView>
        id="risk-history"
        rows={history}
        empty="No changes recorded."
        columns={[
          { header: 'When', cell: (h) => <When value={h.at} /> },
          { header: 'Action', cell: (h) => <Text value={h.action} /> },
          { header: 'By', cell: (h) => <Text value={[h.actor ?? 'system', h.tokenId ? `(API token ${h.tokenId.slice(0, 8)})` : ''].join(' ').trim()} /> },
          { header: 'Through', cell: (h) => <Text value={h.source ?? h.via} /> },
          { header: 'Changes', cell: (h) => <Changes changes={h.changes} name={name} labels={fieldLabels} /> },
          { header: 'Audit entry', cell: (h) => <Text value={h.auditSeq === null ? '' : `#${h.auditSeq}`} />, class: 'num' },
        ]}
      />
      <h2 id="audit">Audit Log entries</h2>
      <DataTable<AuditEntry>
        id="risk-audit"
        rows={audit}
        empty="No Audit Log entries."
        columns={[
          { header: 'Entry', cell: (a) => <Text value={`#${a.seq}`} />, class: 'num' },
          { header: 'When', cell: (a) => <When value={a.at} /> },
          { header: 'Action', cell: (a) => <Text value={`${a.module} ${a.action}`} /> },
          { header: 'Actor', cell: (a) => <Text value={[a.actorKind, a.actorTokenId ? `token ${a.actorTokenId.slice(0, 8)}` : ''].join(' ').trim()} /> },
          { header: 'Via', cell: (a) => <Text value={a.via} /> },
          { header: 'Hash', cell: (a) => <code title={a.hash} safe>{a.hash.slice(0, 12)}</code> },
        ]}
      />
    </>
  );
}

/** Deleting asks first on a page of its own, so the confirmation works without JavaScript. */
export function ConfirmDelete({ risk, csrfToken }: { risk: RiskView; csrfToken: string }): JSX.Element {
  return (
    <form method="post" action={`/risks/${risk.id}/delete`} class="card">
      <CsrfField token={csrfToken} />
      <p>
        {'Delete the risk '}<strong safe>{risk.title}</strong>
        {'? It disappears from the register; its History and Audit Log entries remain.'}
      </p>
      <div class="actions">
        <button type="submit" class="danger">Delete risk</button>
        <a href={`/risks/${risk.id}`}>Cancel</a>
      </div>
    </form>
  );
}
