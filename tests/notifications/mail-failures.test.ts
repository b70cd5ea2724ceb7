import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, inArray } from 'drizzle-orm';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { outbox, reminderDigests, reminderRuns } from '../../db/schema';
import { controlKind } from '../../src/modules/controls/service';
import { MAX_ATTEMPTS } from '../../src/platform/mail/mail';
import { queueMail } from '../../src/platform/mail/mail';
import { notificationSettings, saveMailSettings, saveNotificationSettings } from '../../src/platform/notifications/settings';
import type { Actor } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { sweepOnce } from '../../src/platform/modules/sweep';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';

/**
 * An SMTP server that refuses, is down or hangs: the outbox keeps the mail (retried later, waiting longer each time),
 * the Outbox screen says what failed and for which address, the reminder sweep still finishes and health stays green.
 */

let env: TestEnv;
let admin: Actor;
let refusing: TestSmtp;
let hanging: Server;
const hangingSockets: Socket[] = [];
let downPort: number;

beforeAll(async () => {
  refusing = await startTestSmtp({
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('nobody')) {
        const error = Object.assign(new Error('5.1.1 No such mailbox'), { responseCode: 550 });
        return callback(error);
      }
      callback();
    },
  });
  // Accepts connections and never says a word.
  hanging = createServer((socket) => hangingSockets.push(socket));
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  // A port nothing listens on: a server taken down.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  downPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  env = await startTestEnv({ SMTP_TIMEOUT_SECONDS: '2' });
  admin = await adminActor(env);
}, 400_000);

afterAll(async () => {
  for (const socket of hangingSockets) socket.destroy();
  await new Promise<void>((resolve) => hanging.close(() => resolve()));
  await refusing.close();
});

async function useServer(port: number) {
  await env.ctx.db.transaction((tx) => saveMailSettings(tx, admin, env.ctx.config, {
    host: '127.0.0.1', port, security: 'none', username: '', password: '', from: 'grc@test.example', domains: ['test.example'], caCertificate: '',
  }));
}

async function queue(recipients: string[], subject = unique('Mail')) {
  await env.ctx.db.transaction((tx) => queueMail(tx, { kind: 'test', recipients, subject, body: 'Hello' }));
  const [row] = await env.ctx.db.select().from(outbox).where(eq(outbox.subject, subject));
  return row;
}

const reload = async (id: number) => (await env.ctx.db.select().from(outbox).where(eq(outbox.id, id)))[0];

describe('mail when the SMTP server fails', () => {
  test('a refused address is recorded and shown on the Outbox screen; the others are delivered', async () => {
    await useServer(refusing.port);
    const mail = await queue(['someone@test.example', 'nobody@test.example']);
    await env.ctx.mailer.deliverOutbox();
    const after = await reload(mail.id);
    expect(after.sentAt).not.toBeNull();
    expect(after.rejected).toEqual(['nobody@test.example']);
    expect(refusing.received.find((m) => m.subject === mail.subject)?.to).toEqual(['someone@test.example']);
    const page = await (await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD)).get('/settings/outbox');
    const html = await page.text();
    expect(html).toContain('Sent, but not delivered to nobody@test.example');
    expect(html).toContain('No such mailbox');
  }, 180_000);

  test('every address refused for good: the mail is failed, not tried again, and the screen says so', async () => {
    const mail = await queue(['nobody@test.example']);
    await env.ctx.mailer.deliverOutbox();
    const after = await reload(mail.id);
    expect(after.sentAt).toBeNull();
    expect(after.attempts).toBe(MAX_ATTEMPTS);
    expect(after.rejected).toEqual(['nobody@test.example']);
    const html = await (await (await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD)).get('/settings/outbox')).text();
    expect(html).toContain(`Failed after ${MAX_ATTEMPTS} attempts; refused: nobody@test.example`);
  }, 180_000);

  for (const [what, port] of [['down', () => downPort], ['hanging', () => (hanging.address() as AddressInfo).port]] as const) {
    test(`a server that is ${what}: the mail stays queued with a later retry, the pass stops at the first failure, the sweep finishes, health stays green`, async () => {
      await useServer(port());
      const first = await queue(['someone@test.example']);
      const second = await queue(['another@test.example']);
      await env.ctx.mailer.deliverOutbox();
      const [a, b] = [await reload(first.id), await reload(second.id)];
      expect(a.sentAt).toBeNull();
      expect(a.attempts).toBe(1);
      expect(a.lastError).toBeTruthy();
      expect(a.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
      // The server failed, not the message: the next one keeps its tries for when it is back.
      expect(b.attempts).toBe(0);
      // Waiting for its retry time: another pass leaves it alone.
      await env.ctx.mailer.deliverOutbox();
      expect((await reload(first.id)).attempts).toBe(1);

      // The reminder sweep still collects and queues every digest, and returns.
      const person = await makeUser(env, { 'controls:read': 'own' }, unique(`owner-${what}`));
      await env.ctx.db.transaction(async (tx) => {
        await createRecord(tx, controlKind, admin, { name: unique('Scheduled control'), testFrequencyMonths: 1, ownerId: person.id });
        await saveNotificationSettings(tx, admin, { ...(await notificationSettings(tx)), reminderHour: 0, timeZone: 'UTC' });
      });
      // Each case sweeps today afresh (a real database never forgets a day).
      const today = new Date().toISOString().slice(0, 10);
      await env.ctx.db.delete(reminderDigests).where(eq(reminderDigests.day, today));
      await env.ctx.db.delete(reminderRuns).where(eq(reminderRuns.day, today));
      expect(await sweepOnce(env.ctx)).toBe(true);
      const digests = (await env.ctx.db.select().from(outbox).where(eq(outbox.kind, 'digest'))).filter((m) => m.recipients.includes(person.email));
      expect(digests).toHaveLength(1);
      expect(digests[0].sentAt).toBeNull();
      const health = await env.request('/api/health');
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      await env.ctx.db.delete(outbox).where(inArray(outbox.id, [first.id, second.id, digests[0].id]));
    }, 240_000);
  }
});
