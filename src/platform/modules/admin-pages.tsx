import { count, desc, eq } from 'drizzle-orm';
import { Elysia } from 'elysia';
import type { DbOrTx } from '../../../db/client';
import { auditLog, history, outbox } from '../../../db/schema';
import { renderScreen } from '../http/screen';
import { Flash } from '../../../views/components/flash';
import { Pager } from '../../../views/components/pager';
import { DataTable, shownValue, Tags, Text, When } from '../../../views/components/table';
import { verifyAuditLog, type VerifyResult } from '../audit/audit-verify';
import { MAX_ATTEMPTS } from '../mail/mail';
import type { FieldChanges } from '../audit/history';
import { verifyHistorySeals, type SealResult } from '../audit/history-seals';
import type { AppContext } from '../http/context';
import { AppError, forbidden } from '../core/errors';
import { holdsEveryRight, levelOf, type Actor } from '../permissions/permissions';
import { screenAuth } from '../http/screen-auth';

const PAGE_SIZE = 50;

/** The Audit Log is for administrators: settings:read at level all (the Outbox asks more, below). */
function requireAdministrator(viewer: Actor) {
  if (levelOf(viewer, 'settings:read') !== 'all') {
    throw Object.assign(forbidden('settings:read at level all needed'), { actor: viewer });
  }
}

const pageNumber = (value: string | undefined) => {
  const n = Number(value ?? '1');
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
};

async function listOutbox(db: DbOrTx, page: number) {
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(outbox).orderBy(desc(outbox.id)).limit(PAGE_SIZE).offset((page - 1) * PAGE_SIZE),
    db.select({ total: count() }).from(outbox),
  ]);
  return { rows, total, page, pageSize: PAGE_SIZE };
}

/** The latest entries, each with the changes of the History entry it seals (record writes keep them there). */
async function listAuditEntries(db: DbOrTx, page: number) {
  const [rows, [{ total }]] = await Promise.all([
    db.select({ entry: auditLog, changes: history.changes }).from(auditLog).leftJoin(history, eq(history.auditSeq, auditLog.seq))
      .orderBy(desc(auditLog.seq)).limit(PAGE_SIZE).offset((page - 1) * PAGE_SIZE),
    db.select({ total: count() }).from(auditLog),
  ]);
  return { rows: rows.map(({ entry, changes }) => ({ ...entry, changes: changes as FieldChanges | null })), total, page, pageSize: PAGE_SIZE };
}


type OutboxRow = Awaited<ReturnType<typeof listOutbox>>['rows'][number];
type AuditRow = Awaited<ReturnType<typeof listAuditEntries>>['rows'][number];

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

function OutboxContent({ mails, smtp }: { mails: Awaited<ReturnType<typeof listOutbox>>; smtp: string | null }) {
  return (
    <section id="outbox">
      {smtp
        ? <p safe>{`Mail is sent through ${smtp}. Failed deliveries are tried again, waiting longer each time, up to ${MAX_ATTEMPTS} attempts.`}</p>
        : <Flash kind="info" message="No SMTP server is configured (Settings › Mail or SMTP_URL), so mail stays queued here." />}
      <DataTable<OutboxRow>
        rows={mails.rows}
        empty="No mail."
        columns={[
          { header: 'Queued', cell: (m) => <When value={m.createdAt} /> },
          { header: 'Kind', cell: (m) => <Text value={m.kind} /> },
          { header: 'To', cell: (m) => <Tags values={m.recipients} /> },
          { header: 'Subject', cell: (m) => <details><summary safe>{m.subject}</summary><pre class="details" safe>{m.body}</pre></details> },
          { header: 'Status', cell: deliveryStatus },
        ]}
      />
      <Pager page={mails.page} pageSize={mails.pageSize} total={mails.total} href={(p) => `/settings/outbox?page=${p}`} />
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

function AuditContent({ entries, result, seals, error, since, withHistory }: {
  entries: Awaited<ReturnType<typeof listAuditEntries>>; result?: VerifyResult; seals?: SealResult; error?: string; since: string; withHistory: boolean;
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
      <h2>Latest entries</h2>
      <DataTable<AuditRow>
        rows={entries.rows}
        empty="No entries."
        columns={[
          { header: '#', class: 'num', cell: (e) => <Text value={e.seq} /> },
          { header: 'At', cell: (e) => <When value={e.at} /> },
          { header: 'Who', cell: (e) => <Text value={[e.actorKind, e.actorUserId, e.actorTokenId ? `token ${e.actorTokenId}` : null].filter(Boolean).join(' ')} /> },
          { header: 'Via', cell: (e) => <Text value={e.via} /> },
          { header: 'Action', cell: (e) => <Text value={`${e.module} ${e.action}`} /> },
          { header: 'Record', cell: (e) => <Text value={e.recordType ? `${e.recordType} ${e.recordId ?? ''}` : ''} /> },
          {
            header: 'Details',
            cell: (e) => (
              <>
                <pre class="details" safe>{JSON.stringify(e.details)}</pre>
                {e.changes && (
                  <ul class="plain">
                    {Object.entries(e.changes).map(([field, c]) => <li safe>{`${field}: ${shownValue(c.before)} → ${shownValue(c.after)}`}</li>)}
                  </ul>
                )}
              </>
            ),
          },
        ]}
      />
      <Pager page={entries.page} pageSize={entries.pageSize} total={entries.total} href={(p) => `/settings/audit?page=${p}`} />
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
      const mails = await listOutbox(ctx.db, pageNumber(query.page));
      return renderScreen(headers, { title: 'Outbox', viewer, csrfToken, active: 'outbox' },
        <OutboxContent mails={mails} smtp={await ctx.mailer.smtpServer()} />);
    }, { page: 'settings:read' })
    .get('/settings/audit', async ({ viewer, csrfToken, headers, query }) => {
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
      const entries = await listAuditEntries(ctx.db, pageNumber(query.page));
      return renderScreen(headers, { title: 'Audit log', viewer, csrfToken, active: 'audit' },
        <AuditContent entries={entries} result={result} seals={seals} error={error} since={since} withHistory={withHistory} />);
    }, { page: 'settings:read' });
