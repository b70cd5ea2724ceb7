import { and, asc, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db, DbOrTx } from '../../../db/client';
import { outbox } from '../../../db/schema';
import type { Config } from '../../config';
import { log } from '../core/log';

/** The SMTP server of Settings › Mail, password opened, or null while none is set there (read by the caller's layer). */
export interface SmtpSettings {
  host: string;
  port: number;
  security: 'starttls' | 'tls' | 'none';
  username: string;
  password: string;
  from: string;
  caCertificate: string;
}

/** A file sent with a message: its name, content type and content (base64 as the outbox stores it). */
export interface MailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

export interface MailMessage {
  kind: string;
  recipients: string[];
  subject: string;
  body: string;
  attachments?: MailAttachment[] | null;
}

/** An attachment for the outbox from its text (a CSV), stored base64. */
export const textAttachment = (filename: string, contentType: string, text: string): MailAttachment =>
  ({ filename, contentType, content: Buffer.from(text, 'utf8').toString('base64') });

/**
 * Mail is written to the outbox in the same transaction as the change it reports, so a rolled-back change
 * sends nothing and a committed one is never lost. Delivery happens after commit (deliverOutbox).
 */
export async function queueMail(tx: DbOrTx, message: MailMessage): Promise<void> {
  if (message.recipients.length === 0) return;
  await tx.insert(outbox).values(message);
}

export interface Mailer {
  /** Sends what is waiting in the outbox and due; without an SMTP server mail stays there, readable by administrators. */
  deliverOutbox(): Promise<number>;
  /** Whether SMTP_URL is set (Settings › Mail may configure a server too: see smtpServer). */
  readonly configured: boolean;
  /** The SMTP server in force, in words ("mail.example.com:587, STARTTLS, as grc"), or null when there is none. */
  smtpServer(): Promise<string | null>;
  /** Sends one message now, not through the outbox (Settings › Mail "Send a test message"): the server's answer or why it failed. */
  sendNow(to: string, subject: string, body: string): Promise<{ ok: true; response: string } | { ok: false; error: string }>;
  close(): void;
}

/** A message is tried this many times; then it stays in the outbox as failed. */
export const MAX_ATTEMPTS = 10;

/** The wait before the next try after `attempts` tries: a minute, doubling, at most six hours. */
export const retryDelayMs = (attempts: number) => Math.min(60_000 * 2 ** Math.max(0, attempts - 1), 6 * 3_600_000);

/** Failures of the server rather than of one message: the pass stops, the other messages keep their tries. */
const SERVER_FAILURES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'EAUTH', 'ETLS', 'EPROTOCOL', 'ECONNREFUSED', 'ECONNRESET']);

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  rejected?: string[];
}

interface Resolved {
  key: string;
  transport: Transporter;
  from: string;
  described: string;
}

/**
 * The outbox's sender. The SMTP server is the one in Settings › Mail when a host is set there (STARTTLS or TLS, with
 * authentication), else SMTP_URL; read at each delivery pass, so a change applies without a restart.
 */
export function createMailer(
  db: Db, config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'SMTP_TIMEOUT_SECONDS'>, readSettings: () => Promise<SmtpSettings | null> = async () => null,
): Mailer {
  const timeouts = {
    connectionTimeout: config.SMTP_TIMEOUT_SECONDS * 1000, greetingTimeout: config.SMTP_TIMEOUT_SECONDS * 1000, socketTimeout: config.SMTP_TIMEOUT_SECONDS * 1000,
  };
  let current: Resolved | null = null;
  let running: Promise<number> | null = null;

  function fromSettings(s: SmtpSettings): Resolved {
    const key = JSON.stringify(s);
    if (current?.key === key) return current;
    current?.transport.close();
    const transport = nodemailer.createTransport({
      host: s.host, port: s.port, secure: s.security === 'tls', requireTLS: s.security === 'starttls', ignoreTLS: s.security === 'none',
      ...(s.username ? { auth: { user: s.username, pass: s.password } } : {}),
      ...(s.caCertificate ? { tls: { ca: s.caCertificate } } : {}),
      ...timeouts,
    });
    const security = { starttls: 'STARTTLS', tls: 'TLS', none: 'no encryption' }[s.security];
    current = { key, transport, from: s.from || config.MAIL_FROM, described: `${s.host}:${s.port}, ${security}${s.username ? `, as ${s.username}` : ''}` };
    return current;
  }

  async function resolve(): Promise<Resolved | null> {
    const settings = await readSettings();
    if (settings?.host) return fromSettings(settings);
    if (!config.SMTP_URL) return null;
    if (current?.key !== config.SMTP_URL) {
      current?.transport.close();
      const url = new URL(config.SMTP_URL);
      current = { key: config.SMTP_URL, transport: nodemailer.createTransport({ url: config.SMTP_URL, ...timeouts }), from: config.MAIL_FROM, described: `${url.host} (SMTP_URL)` };
    }
    return current;
  }

  async function deliverBatch(): Promise<number> {
    const server = await resolve();
    if (!server) return 0;
    const now = new Date();
    const pending = await db.select().from(outbox)
      .where(and(isNull(outbox.sentAt), lt(outbox.attempts, MAX_ATTEMPTS), or(isNull(outbox.nextAttemptAt), lte(outbox.nextAttemptAt, now))))
      .orderBy(asc(outbox.id)).limit(50);
    let sent = 0;
    for (const mail of pending) {
      // Claim the row first so two instances never send the same message twice; the next try is already set, so a
      // process stopped mid-send backs off too.
      const claimed = await db.update(outbox).set({
        attempts: sql`${outbox.attempts} + 1`, nextAttemptAt: new Date(Date.now() + retryDelayMs(mail.attempts + 1)),
      }).where(and(eq(outbox.id, mail.id), eq(outbox.attempts, mail.attempts), isNull(outbox.sentAt))).returning({ id: outbox.id });
      if (claimed.length === 0) continue;
      try {
        const info = await server.transport.sendMail({
          from: server.from, to: mail.recipients, subject: mail.subject, text: mail.body,
          ...(mail.attachments?.length ? { attachments: mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content, encoding: 'base64' })) } : {}),
        });
        const rejected = (info.rejected ?? []).map(String);
        await db.update(outbox).set({
          sentAt: new Date(), nextAttemptAt: null, rejected: rejected.length ? rejected : null,
          lastError: rejected.length ? `refused by the server: ${rejected.join(', ')}${info.rejectedErrors?.[0] ? ` (${info.rejectedErrors[0].message})` : ''}`.slice(0, 500) : null,
        }).where(eq(outbox.id, mail.id));
        sent += 1;
      } catch (caught) {
        const error = caught as SmtpError;
        const message = (error.response ?? error.message ?? String(caught)).slice(0, 500);
        // Every address refused for good (5xx): trying again cannot help.
        const permanent = error.code === 'EENVELOPE' && (error.responseCode ?? 0) >= 500;
        await db.update(outbox).set({
          lastError: message, ...(permanent ? { attempts: MAX_ATTEMPTS, rejected: error.rejected ?? mail.recipients } : {}),
        }).where(eq(outbox.id, mail.id));
        log.error('mail delivery failed', { outboxId: mail.id, error: message, code: error.code });
        if (error.code && SERVER_FAILURES.has(error.code)) break;
      }
    }
    return sent;
  }

  return {
    configured: Boolean(config.SMTP_URL),
    deliverOutbox() {
      // One delivery pass at a time per process; callers that arrive meanwhile share its result.
      running ??= deliverBatch().finally(() => { running = null; });
      return running;
    },
    async smtpServer() {
      return (await resolve())?.described ?? null;
    },
    async sendNow(to, subject, body) {
      const server = await resolve();
      if (!server) return { ok: false, error: 'No SMTP server is configured.' };
      try {
        const info = await server.transport.sendMail({ from: server.from, to, subject, text: body });
        return info.rejected?.length ? { ok: false, error: `The server refused ${info.rejected.join(', ')}.` } : { ok: true, response: String(info.response ?? 'accepted') };
      } catch (caught) {
        const error = caught as SmtpError;
        return { ok: false, error: (error.response ?? error.message ?? String(caught)).slice(0, 500) };
      }
    },
    close() {
      current?.transport.close();
    },
  };
}
