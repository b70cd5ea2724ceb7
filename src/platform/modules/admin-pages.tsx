import { Elysia } from 'elysia';
import { renderScreen } from '../http/screen';
import { Flash } from '../../../views/components/flash';
import { Pager } from '../../../views/components/pager';
import { DataTable, Tags, Text, When } from '../../../views/components/table';
import { fieldErrors, Select, type Option } from '../../../views/components/form';
import { FilteredList, type ListPage, type ListState } from '../../../views/components/list';
import { csvDownload } from '../csv/list-download';
import { pageOf } from '../http/list-query';
import { listOutboxPage, mailKindLabel, outboxCsvColumns, outboxKinds, outboxListState, outboxRows, OUTBOX_STATE_LABELS, type OutboxRow } from './outbox-list';
import { ChangeLine } from '../record-screens/record-views';
import { platformService } from '../http/installed';
import { toCsv } from '../csv/write';
import { readerZone } from '../csv/zone';
import {
  auditCsvRows, auditFilterFrom, auditModules, auditRecordChoices, chosenAuditRecord, listAuditEntries, type AuditFilter, type AuditRecordChoice, type ShownAuditEntry,
} from './audit-log-entries';
import { verifyAuditLog, type VerifyResult } from '../audit/audit-verify';
import { MAX_ATTEMPTS } from '../mail/mail';
import { verifyHistorySeals, type SealResult } from '../audit/history-seals';
import type { AppContext } from '../http/context';
import { AppError, forbidden } from '../core/errors';
import { holdsEveryRight, levelOf, type Actor } from '../permissions/permissions';
import { screenAuth } from '../http/screen-auth';

/** The Audit Log is for administrators: settings:read at level all (the Outbox asks more, below). */
function requireAdministrator(viewer: Actor) {
  if (levelOf(viewer, 'settings:read') !== 'all') {
    throw Object.assign(forbidden('settings:read at level all needed'), { actor: viewer });
  }
}

/** Where a mail is: sent (and to whom the server refused it), waiting for its next try, failed for good, or queued. */
function deliveryStatus(m: OutboxRow): JSX.Element {
  if (m.sentAt) {
    return m.rejected?.length
      ? <span class="status-bad" safe>{`Sent, but not delivered to ${m.rejected.join(', ')}${m.lastError ? `: ${m.lastError}` : ''}`}</span>
      : <span class="status-ok">Sent <When value={m.sentAt} /></span>;
  }
  if (m.attempts >= MAX_ATTEMPTS) {
    return <span class="status-bad" safe>{`Failed after ${m.attempts} attempts${m.rejected?.length ? `; refused: ${m.rejected.join(', ')}` : ''}: ${m.lastError ?? 'unknown error'}`}</span>;
  }
  if (m.lastError) {
    return <span class="status-queued">{`Queued (${m.attempts} ${m.attempts === 1 ? 'attempt' : 'attempts'}; ${m.lastError}); next try `}<When value={m.nextAttemptAt} /></span>;
  }
  return <span class="status-queued">Queued</span>;
}

function OutboxContent({ mails, state, kinds, smtp }: { mails: ListPage<OutboxRow>; state: ListState; kinds: Option[]; smtp: string | null }) {
  return (
    <section id="outbox">
      {smtp
        ? <p safe>{`Mail is sent through ${smtp}. Failed deliveries are tried again, waiting longer each time, up to ${MAX_ATTEMPTS} attempts.`}</p>
        : <Flash kind="info" message="No SMTP server is configured (Settings › Mail or SMTP_URL), so mail stays queued here." />}
      <FilteredList<OutboxRow> path="/settings/outbox" name="mail" one="mail" many="mails" state={state} page={mails} defaultSort="-createdAt"
        empty="No mail." search="Search subjects and recipients"
        selects={[
          { name: 'state', label: 'Status', options: Object.entries(OUTBOX_STATE_LABELS).map(([value, label]) => ({ value, label })) },
          { name: 'kind', label: 'Kind', options: kinds },
        ]}
        columns={[
          { header: 'Queued', sort: 'createdAt', cell: (m) => <When value={m.createdAt} local /> },
          { header: 'Kind', sort: 'kind', cell: (m) => <Text value={mailKindLabel(m.kind)} /> },
          { header: 'To', cell: (m) => <Tags values={m.recipients} /> },
          { header: 'Subject', sort: 'subject', cell: (m) => <details><summary safe>{m.subject}</summary><pre class="details" safe>{m.body}</pre>
            {m.attachments?.length ? <p class="muted" safe>{`Attached: ${m.attachments.map((a) => `${a.filename} (${Math.ceil((a.content.length * 3) / 4 / 1024)} KB)`).join(', ')}`}</p> : ''}</details> },
          { header: 'Status', cell: deliveryStatus },
        ]}
      />
    </section>
  );
}

function SealsLine({ seals }: { seals: SealResult }) {
  const notes = [
    seals.unsealed ? `${seals.unsealed} History entries name no audit entry` : '',
    seals.beforeLog ? `${seals.beforeLog} belong to pruned entries and were not checked` : '',
  ].filter(Boolean).join('; ');
  if (seals.firstBad) {
    return <p class="status-bad" safe>{`History does not match its seal at audit entry ${seals.firstBad.seq}: ${seals.firstBad.reason}.`}</p>;
  }
  return <p class={seals.ok ? 'status-ok' : 'status-bad'} safe>{`History: ${seals.checked} entries match their seals${notes ? ` (${notes})` : ''}.`}</p>;
}

function VerifyBox({ result, seals, error }: { result?: VerifyResult; seals?: SealResult; error?: string }) {
  if (error) return <Flash kind="error" message={error} />;
  if (!result) return '';
  return (
    <div class="card" id="verify-result">
      {result.ok
        ? <p class="status-ok" safe>{`Chain intact: ${result.count} entries verified.`}</p>
        : <p class="status-bad" safe>{`Chain broken at entry ${result.firstBad?.seq ?? '?'}: ${result.firstBad?.reason ?? result.since?.reason ?? 'unknown reason'}`}</p>}
      {result.since && (
        <p safe>{result.since.extended ? `The log still extends checkpoint ${result.since.checkpoint}.` : `The log does NOT extend checkpoint ${result.since.checkpoint}${result.since.reason ? `: ${result.since.reason}` : ''}.`}</p>
      )}
      {seals && <SealsLine seals={seals} />}
      {result.checkpoint && <p>Checkpoint to keep outside the database: <code class="secret" safe>{result.checkpoint}</code></p>}
    </div>
  );
}

function AuditContent({ entries, result, seals, error, since, withHistory, filter, users, filterErrors, picker }: {
  entries: Awaited<ReturnType<typeof listAuditEntries>>; result?: VerifyResult; seals?: SealResult; error?: string; since: string; withHistory: boolean;
  filter: Record<string, string>; users: { value: string; label: string }[]; filterErrors: Record<string, string>; picker: RecordPicker;
}) {
  return (
    <section id="audit">
      <form method="get" action="/settings/audit" class="card">
        <p>Verification recomputes every entry's hash and checks the chain links. Give an earlier checkpoint to also check that nothing before it was replaced.</p>
        <div class="field">
          <label for="f-since">Earlier checkpoint (optional)</label>
          <input id="f-since" name="since" type="text" value={since} placeholder="seq:sha-256" />
        </div>
        <div class="field">
          <label><input type="checkbox" name="history" value="1" checked={withHistory} /> Also check every History entry against the seal its audit entry carries</label>
        </div>
        <input type="hidden" name="verify" value="1" />
        <button type="submit">Verify the Audit Log</button>
      </form>
      <VerifyBox result={result} seals={seals} error={error} />
      <h2 id="entries-heading">Entries</h2>
      <AuditFilterBar filter={filter} users={users} errors={filterErrors} picker={picker} />
      <AuditEntries entries={entries} filter={filter} />
    </section>
  );
}

/** Settings › Outbox and Settings › Audit log (read-only screens for administrators). */
export const adminPages = (ctx: AppContext) =>
  new Elysia({ name: 'platform:admin-pages' })
    .use(screenAuth(ctx))
    .get('/settings/outbox', async ({ viewer, csrfToken, headers, query }) => {
      // Mails carry password reset links: reading them is becoming their recipient, so only for who holds every right.
      if (!holdsEveryRight(viewer)) throw Object.assign(forbidden('every right at level all needed to read the Outbox'), { actor: viewer });
      const kinds = await outboxKinds(ctx.db);
      const state = outboxListState(query, kinds.map((k) => k.value));
      const [mails, smtp] = await Promise.all([listOutboxPage(ctx.db, state), ctx.mailer.smtpServer()]);
      return renderScreen(headers, { title: 'Outbox', viewer, csrfToken, active: 'outbox' },
        <OutboxContent mails={mails} state={state} kinds={kinds} smtp={smtp} />);
    }, { page: 'settings:read' })
    // The mails of the filters as CSV (never their bodies), for the same readers as the Outbox.
    .get('/settings/outbox/export.csv', async ({ viewer, query, set }) => {
      if (!holdsEveryRight(viewer)) throw Object.assign(forbidden('every right at level all needed to read the Outbox'), { actor: viewer });
      const state = outboxListState(query, (await outboxKinds(ctx.db)).map((k) => k.value));
      return csvDownload(set, 'outbox', outboxCsvColumns(readerZone(query.tz)), await outboxRows(ctx.db, state));
    }, { page: 'settings:read' })
    .get('/settings/audit', async ({ viewer, csrfToken, headers, query, set }) => {
      requireAdministrator(viewer);
      const since = (query.since ?? '').trim();
      const withHistory = query.history === '1';
      let result: VerifyResult | undefined;
      let seals: SealResult | undefined;
      let error: string | undefined;
      if (query.verify) {
        try {
          result = await verifyAuditLog(ctx.db, since ? { since } : {});
          if (withHistory) seals = await verifyHistorySeals(ctx.db);
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== 'INVALID') throw e;
          error = e.message;
        }
      }
      const { filter, errors: filterErrors } = filterOrErrors(query);
      const shown = filterValues(query);
      const recordName = (query.recordName ?? '').trim().slice(0, 200);
      const [entries, people, chosen, choices] = await Promise.all([
        listAuditEntries(ctx.db, viewer, filter ?? {}, pageOf(query.page)), platformService('listUsers')(ctx.db),
        shown.record ? chosenAuditRecord(ctx.db, viewer, shown.record) : null,
        !shown.record && recordName ? auditRecordChoices(ctx.db, viewer, recordName) : [],
      ]);
      if (!filter) {
        Object.assign(entries, { rows: [], total: 0 });
        set.status = 400;
      }
      return renderScreen(headers, { title: 'Audit log', viewer, csrfToken, active: 'audit' },
        <AuditContent entries={entries} result={result} seals={seals} error={error} since={since} withHistory={withHistory}
          filter={shown} users={people.map((u) => ({ value: u.id, label: `${u.name} <${u.email}>` }))} filterErrors={filterErrors}
          picker={{ recordName, chosen, choices }} />);
    }, { page: 'settings:read' })
    // The record picker's suggestions as the person types (htmx): records they may read whose name holds the text, each
    // a link to the Audit Log with the other filters kept and the record set. The same list shows without scripts on Apply.
    .get('/settings/audit/record-choices', async ({ viewer, query, set }) => {
      requireAdministrator(viewer);
      const recordName = (query.recordName ?? '').trim().slice(0, 200);
      set.headers['content-type'] = 'text/html; charset=utf-8';
      return <RecordChoices filter={filterValues(query)} recordName={recordName} choices={await auditRecordChoices(ctx.db, viewer, recordName)} />;
    }, { page: 'settings:read' })
    // The filtered entries as CSV (UTF-8 with a byte order mark, formula-like cells neutralised): at most AUDIT_EXPORT_LIMIT.
    .get('/settings/audit/export.csv', async ({ viewer, query, set }) => {
      requireAdministrator(viewer);
      const rows = await auditCsvRows(ctx.db, viewer, auditFilterFrom(query), readerZone(query.tz));
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="audit-log-${new Date().toISOString().slice(0, 10)}.csv"`;
      return toCsv(rows);
    }, { page: 'settings:read' });

const FILTER_KEYS = ['q', 'actor', 'module', 'action', 'record', 'from', 'to'] as const;

const filterValues = (query: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(FILTER_KEYS.map((key) => [key, (query[key] ?? '').trim()]));

/** The filter, or the problems of its fields (shown beside them, the entries left empty). */
function filterOrErrors(query: Record<string, string | undefined>): { filter: AuditFilter | null; errors: Record<string, string> } {
  try {
    return { filter: auditFilterFrom(query), errors: {} };
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'INVALID') throw e;
    return { filter: null, errors: fieldErrors(e.problems) };
  }
}

const auditQuery = (filter: Record<string, string>, extra: Record<string, string> = {}) => {
  const params = new URLSearchParams(Object.entries({ ...filter, ...extra }).filter(([, v]) => v !== ''));
  const text = params.toString();
  return text ? `?${text}` : '';
};

/** The record filter as the page shows it: the text typed in the picker, the record chosen (named), or the suggestions. */
interface RecordPicker {
  recordName: string;
  /** The record of the filter as its newest entry names it; null when none names it (or no record is chosen). */
  chosen: { title: string; label: string } | null;
  choices: AuditRecordChoice[];
}

/**
 * The record picker's suggestions: links to the Audit Log with the other filters kept and the record set (its id in the
 * address). A live region, so a screen reader hears how many were found as the person types.
 */
function RecordChoices({ filter, recordName, choices }: { filter: Record<string, string>; recordName: string; choices: AuditRecordChoice[] }) {
  const withRecord = (id: string) => `/settings/audit${auditQuery({ ...filter, record: id })}`;
  return (
    <div id="record-choices" class="record-choices" aria-live="polite">
      {recordName && (choices.length
        ? <>
            <p class="hint" safe>{`${choices.length} ${choices.length === 1 ? 'record' : 'records'} found: pick one`}</p>
            <ul>{choices.map((c) => <li><a href={withRecord(c.id)} safe>{c.title}</a> <span class="muted" safe>{c.label}</span></li>)}</ul>
          </>
        : <p class="hint" safe>{`No record you may read is named like “${recordName}”.`}</p>)}
    </div>
  );
}

/** The record filter: the chosen record by name and type (its id kept in the form), or a search that suggests records by name. */
function RecordFilter({ filter, picker, error }: { filter: Record<string, string>; picker: RecordPicker; error?: string }) {
  if (filter.record) {
    const { record: _, ...others } = filter;
    return (
      <div class={`field record-filter${error ? ' has-error' : ''}`} role="group" aria-labelledby="filter-record-label">
        <span id="filter-record-label" class="label">Record</span>
        <input type="hidden" name="record" value={filter.record} />
        <p id="filter-record-chosen">
          {picker.chosen
            ? <><strong safe>{picker.chosen.title}</strong> <span class="muted" safe>{`(${picker.chosen.label})`}</span></>
            : <><span>No entry names record </span><code safe>{filter.record}</code></>}
          {' '}<a href={`/settings/audit${auditQuery(others)}`}>Change record</a>
        </p>
        {error && <small id="filter-record-error" class="error" safe>{error}</small>}
      </div>
    );
  }
  return (
    <div class="field record-filter">
      <label for="filter-recordName">Record</label>
      <input id="filter-recordName" name="recordName" type="search" value={picker.recordName} maxlength="200" autocomplete="off"
        aria-describedby="filter-recordName-hint" aria-controls="record-choices"
        hx-get="/settings/audit/record-choices" hx-include="closest form" hx-target="#record-choices" hx-swap="outerHTML"
        hx-trigger="input changed delay:300ms, search" />
      <small id="filter-recordName-hint" class="hint">Type part of its name, then pick it</small>
      <RecordChoices filter={filter} recordName={picker.recordName} choices={picker.choices} />
    </div>
  );
}

/** Filters of the Audit Log: search, person, module, action, record and a range of days, as a plain GET form. */
function AuditFilterBar({ filter, users, errors, picker }: { filter: Record<string, string>; users: { value: string; label: string }[]; errors: Record<string, string>; picker: RecordPicker }) {
  const text = (name: string, label: string, type = 'text', hint?: string) => (
    <div class={`field${errors[name] ? ' has-error' : ''}`}>
      <label for={`filter-${name}`} safe>{label}</label>
      <input id={`filter-${name}`} name={name} type={type} value={filter[name]} maxlength="200" aria-invalid={errors[name] ? 'true' : undefined}
        aria-describedby={errors[name] ? `filter-${name}-error` : hint ? `filter-${name}-hint` : undefined} />
      {hint && !errors[name] && <small id={`filter-${name}-hint`} class="hint" safe>{hint}</small>}
      {errors[name] && <small id={`filter-${name}-error`} class="error" safe>{errors[name]}</small>}
    </div>
  );
  const filtered = FILTER_KEYS.some((key) => filter[key]) || picker.recordName !== '';
  return (
    <form method="get" action="/settings/audit" class="filter-bar card audit-filters" role="search" aria-label="Filter the Audit Log">
      {text('q', 'Search', 'search')}
      <div class="field">
        <label for="filter-actor">Person</label>
        <Select id="filter-actor" name="actor" selected={filter.actor} options={[{ value: '', label: 'Anyone' }, ...users]} />
      </div>
      <div class="field">
        <label for="filter-module">Module</label>
        <Select id="filter-module" name="module" selected={filter.module} options={[{ value: '', label: 'Any' }, ...auditModules()]} />
      </div>
      {text('action', 'Action', 'text', 'As the entries read it: Created, Changed, Deleted, Signed in, Control linked')}
      <RecordFilter filter={filter} picker={picker} error={errors.record} />
      {text('from', 'From', 'date')}
      {text('to', 'To', 'date')}
      <div class="filter-actions">
        <button type="submit" class="secondary">Apply</button>
        {filtered && <a href="/settings/audit">Clear filters</a>}
      </div>
    </form>
  );
}

/** The entries of the filter: one row each in the History layout, with the entry's number, module and details. */
function AuditEntries({ entries, filter }: { entries: Awaited<ReturnType<typeof listAuditEntries>>; filter: Record<string, string> }) {
  return (
    <div id="audit-entries">
      <p class="actions">
        <span class="muted" safe>{`${entries.total} ${entries.total === 1 ? 'entry' : 'entries'}`}</span>
        <a class="button secondary" href={`/settings/audit/export.csv${auditQuery(filter)}`} download="" data-reader-zone="">Download CSV</a>
      </p>
      <DataTable<ShownAuditEntry>
        id="audit-table"
        rows={entries.rows}
        empty="No entries match."
        columns={[
          { header: '#', class: 'num', cell: (e) => <Text value={e.seq} /> },
          { header: 'When', cell: (e) => <When value={e.at} local /> },
          { header: 'Who', cell: (e) => <><Text value={e.who} /><br /><span class="muted" safe>{e.door}</span></> },
          { header: 'Action', cell: (e) => <><Text value={e.actionLabel} /><br /><span class="muted" safe>{e.moduleLabel}</span></> },
          {
            header: 'Record',
            cell: (e) => (e.record
              ? <>{e.record.href ? <a href={e.record.href} safe>{e.record.title}</a> : <span safe>{e.record.title}</span>}<br /><span class="muted" safe>{e.record.label}</span></>
              : <span class="muted">—</span>),
          },
          {
            header: 'Details',
            cell: (e) => (
              <>
                {e.hidden && <p class="muted">Changes not shown: you may not read this record.</p>}
                {e.changes.length > 0 && <ul class="changes">{e.changes.map((c) => <ChangeLine change={c} />)}</ul>}
                {e.details.length > 0 && <dl class="fields">{e.details.map((d) => <><dt safe>{d.label}</dt><dd safe>{d.value}</dd></>)}</dl>}
              </>
            ),
          },
        ]}
      />
      <Pager page={entries.page} pageSize={entries.pageSize} total={entries.total} href={(p) => `/settings/audit${auditQuery(filter, { page: String(p) })}`} />
    </div>
  );
}
