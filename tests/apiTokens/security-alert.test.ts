import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { groups, outbox } from '../../db/schema';
import { ADMINISTRATORS_GROUP } from '../../src/platform/modules/reference-data';
import { addGroupMember, createUser } from '../../src/modules/people/service';
import { systemActor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

// Every test has a generous timeout: booting private services, hashing passwords and spawning processes
// take seconds when the machine is busy.

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on a free local port; every message it accepts is kept for the assertions. */
const received: Received[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'),
      });
      callback();
    });
  },
});

let env: TestEnv;
beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  env = await startTestEnv({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'GRC <grc@test.example>' });
}, 60_000); // a private service boots its own database (migrations, reference data): seconds on PGlite
afterAll(async () => {
  // close() waits for open client connections; a client may still be saying QUIT, so give it a moment, not forever.
  await Promise.race([new Promise<void>((resolve) => smtp.close(() => resolve())), Bun.sleep(3_000)]);
});

async function waitFor<T>(find: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('timed out waiting for the message to be received and recorded as sent');
    await Bun.sleep(25);
  }
}

/** Quoted-printable soft line breaks would split long lines; undo them before searching the text. */
const text = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

/** The Subject header as a reader sees it: unfolded, RFC 2047 encoded words (Q encoding) decoded. */
function subjectOf(raw: string): string {
  const header = /^Subject:(.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return header.replace(/\r?\n[ \t]+/g, ' ')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_, word: string) =>
      Buffer.from(word.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'))
    .trim();
}

describe('security alert on token creation', () => {
  test('every active administrator receives an email over SMTP naming the token, its scopes and its expiry', async () => {
    const second = `${unique('second-admin')}@test.example`;
    await env.ctx.db.transaction(async (tx) => {
      const system = systemActor();
      const { id } = await createUser(tx, system, { email: second, name: 'Second administrator' });
      const [group] = await tx.select({ id: groups.id }).from(groups).where(eq(groups.name, ADMINISTRATORS_GROUP));
      await addGroupMember(tx, system, group.id, id);
    });
    const secret = await makeToken(env, await adminActor(env), ['apiTokens:create']);
    const name = unique('Nightly export (finance)');
    const expiry = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const res = await env.request('/api/v1/api-tokens', bearer(secret, {
      method: 'POST', body: JSON.stringify({ name, scopes: ['apiTokens:create'], expiresAt: expiry }),
    }));
    expect(res.status, await res.clone().text()).toBe(201);
    const { data } = (await res.json()) as { data: { secret: string } };

    const mail = await waitFor(() => received.find((m) => text(m.raw).includes(name)));
    expect(mail.to.sort()).toEqual([ADMIN_EMAIL, second].sort());
    expect(mail.from).toBe('grc@test.example');
    const body = text(mail.raw);
    expect(subjectOf(mail.raw)).toBe(`Security alert: API token "${name}" created`);
    expect(body).toContain(`Token: ${name}`);
    expect(body).toContain('Scopes: apiTokens:create');
    expect(body).toContain(`Expires: ${expiry}`);
    expect(body).toContain(ADMIN_EMAIL);
    expect(body).not.toContain(data.secret);

    // The server has the message before the dispatcher records it as sent: wait for that record too.
    const row = await waitFor(async () =>
      (await env.ctx.db.select().from(outbox)).find((m) => m.subject.includes(name) && m.sentAt !== null));
    expect(row.lastError).toBeNull();
  }, 60_000);

  test('a refused creation sends no alert', async () => {
    const secret = await makeToken(env, await adminActor(env), ['apiTokens:create']);
    const name = unique('Refused token');
    const res = await env.request('/api/v1/api-tokens', bearer(secret, {
      method: 'POST', body: JSON.stringify({ name, scopes: ['apiTokens:create'], expiresAt: '2999-01-01' }),
    }));
    expect(res.status, await res.clone().text()).toBe(400);
    await env.ctx.mailer.deliverOutbox();
    expect(received.some((m) => text(m.raw).includes(name))).toBe(false);
    expect((await env.ctx.db.select().from(outbox)).filter((m) => m.subject.includes(name))).toHaveLength(0);
  }, 60_000);
});
