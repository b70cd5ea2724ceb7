import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db, DbOrTx } from '../../../db/client';
import { outbox } from '../../../db/schema';
import { log } from '../core/log';

export interface MailMessage {
  kind: string;
  recipients: string[];
  subject: string;
  body: string;
}

/**
 * Mail is written to the outbox in the same transaction as the change it reports, so a rolled-back change
 * sends nothing and a committed one is never lost. Delivery happens after commit (deliverOutbox).
 */
export async function queueMail(tx: DbOrTx, message: MailMessage): Promise<void> {
  if (message.recipients.length === 0) return;
  await tx.insert(outbox).values(message);
}

export interface Mailer {
  /** Sends what is waiting in the outbox; without SMTP_URL mail stays there, readable by administrators. */
  deliverOutbox(): Promise<number>;
  readonly configured: boolean;
  close(): void;
}

const MAX_ATTEMPTS = 10;

export function createMailer(db: Db, smtpUrl: string | undefined, from: string): Mailer {
  const transport: Transporter | null = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  let running: Promise<number> | null = null;

  async function deliverBatch(): Promise<number> {
    if (!transport) return 0;
    const pending = await db.select().from(outbox)
      .where(and(isNull(outbox.sentAt), lt(outbox.attempts, MAX_ATTEMPTS)))
      .orderBy(asc(outbox.id)).limit(50);
    let sent = 0;
    for (const mail of pending) {
      // Claim the row first so two instances never send the same message twice.
      const claimed = await db.update(outbox).set({ attempts: sql`${outbox.attempts} + 1` })
        .where(and(eq(outbox.id, mail.id), eq(outbox.attempts, mail.attempts), isNull(outbox.sentAt))).returning({ id: outbox.id });
      if (claimed.length === 0) continue;
      try {
        await transport.sendMail({ from, to: mail.recipients, subject: mail.subject, text: mail.body });
        await db.update(outbox).set({ sentAt: new Date(), lastError: null }).where(eq(outbox.id, mail.id));
        sent += 1;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await db.update(outbox).set({ lastError: message.slice(0, 500) }).where(eq(outbox.id, mail.id));
        log.error('mail delivery failed', { outboxId: mail.id, error: message });
      }
    }
    return sent;
  }

  return {
    configured: transport !== null,
    deliverOutbox() {
      // One delivery pass at a time per process; callers that arrive meanwhile share its result.
      running ??= deliverBatch().finally(() => { running = null; });
      return running;
    },
    close() {
      transport?.close();
    },
  };
}
