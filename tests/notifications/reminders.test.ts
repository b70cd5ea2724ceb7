import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, inArray } from 'drizzle-orm';
import { auditLog, outbox, reminderDigests, reminderRuns } from '../../db/schema';
import { addItem, programKind } from '../../src/modules/accountReviews/service';
import { auditPlanKind, findingKind } from '../../src/modules/audits/service';
import { controlKind } from '../../src/modules/controls/service';
import { evidenceKind } from '../../src/modules/evidence/service';
import { riskParent } from '../../src/modules/exceptions/parents';
import { createException } from '../../src/modules/exceptions/service';
import { createTreatment } from '../../src/modules/risks/treatments-service';
import { claimDueDay, collectDay, previewDigest, previewNextSweep, sendDigests } from '../../src/platform/notifications/reminders';
import { notificationSettings, saveMailPreferences, saveNotificationSettings } from '../../src/platform/notifications/settings';
import { addGroupMember, createGroup } from '../../src/modules/people/service';
import { systemActor, type Actor } from '../../src/platform/permissions/permissions';
import { createRecord } from '../../src/platform/records/records';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';

/**
 * The daily reminder sweep: every kind of due date declared by the modules, one digest per person over SMTP, the read
 * right and opt-outs respected, a day never sent twice, milestones reminded once, pause and resume audited, and the
 * preview showing who gets what.
 */

let env: TestEnv;
let smtp: TestSmtp;
let admin: Actor;
let owner: TestUser;
let member: TestUser;
let unreadable: TestUser;
let quiet: TestUser;

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const today = new Date().toISOString().slice(0, 10);
/** The sweep's day: two years on, when every yearly review made today is due. */
const DAY = addDays(today, 800);

const ALL_READ = {
  'risks:read': 'own', 'risks:update': 'own', 'risks:create': 'own', 'controls:read': 'own', 'audits:read': 'own', 'evidence:read': 'own', 'accountReviews:read': 'own',
} as const;

beforeAll(async () => {
  smtp = await startTestSmtp();
  env = await startTestEnv({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'GRC <grc@test.example>', PUBLIC_URL: 'https://grc.test.example' });
  admin = await adminActor(env);
  owner = await makeUser(env, ALL_READ, unique('olga.owner'));
  member = await makeUser(env, { 'risks:read': 'own' }, unique('max.member'));
  unreadable = await makeUser(env, { 'controls:read': 'own' }, unique('una.unreadable'));
  quiet = await makeUser(env, { 'risks:read': 'own' }, unique('quinn.quiet'));
  await quiet.actor().then((a) => env.ctx.db.transaction((tx) => saveMailPreferences(tx, a, { digests: false, ruleMails: true })));

  const o = owner.id;
  const riskId = await makeRisk(env, admin, { title: 'Vendor lock-in', ownerId: o });
  await makeRisk(env, admin, { title: 'Group-owned risk', ownerId: null, ownerGroupId: member.groupId });
  await makeRisk(env, admin, { title: 'Risk its owner may not read', ownerId: unreadable.id });
  await makeRisk(env, admin, { title: 'Risk of a quiet person', ownerId: quiet.id });
  await env.ctx.db.transaction(async (tx) => {
    await createRecord(tx, controlKind, admin, { name: 'Quarterly access review', testFrequencyMonths: 3, ownerId: o });
    await createRecord(tx, controlKind, admin, { name: 'Control without schedule', ownerId: o });
    await createTreatment(tx, admin, riskId, { type: 'mitigate', title: 'Second supplier', dueOn: addDays(DAY, -1) });
    await createException(tx, riskParent, admin, { parentId: riskId, title: 'Legacy TLS', description: 'Until migration', expiresAt: addDays(DAY, 7), ownerId: o });
    await createException(tx, riskParent, admin, { parentId: riskId, title: 'Far exception', description: 'Later', expiresAt: addDays(DAY, 60), ownerId: o });
    const { id: planId } = await createRecord(tx, auditPlanKind, admin, { title: 'ISO audit', ownerId: o });
    await createRecord(tx, findingKind, admin, { auditPlanId: planId, title: 'Missing logs', deadline: addDays(DAY, -10), ownerId: o });
    await createRecord(tx, evidenceKind, admin, { title: 'SOC 2 report', collectedOn: today, validUntil: addDays(DAY, 30), ownerId: o });
    const { id: programId } = await createRecord(tx, programKind, admin, { name: 'Q1 access review', dueOn: addDays(DAY, -5), ownerId: o });
    await addItem(tx, admin, programId, { account: 'jdoe', system: 'ERP' });
    await addItem(tx, admin, programId, { account: 'asmith', system: 'ERP' });
  });
}, 400_000);

afterAll(async () => {
  await smtp.close();
});

const digestsFor = async (day: string) =>
  env.ctx.db.select({ to: outbox.recipients, subject: outbox.subject, body: outbox.body }).from(outbox).where(and(eq(outbox.kind, 'digest'), eq(outbox.subject, outbox.subject)))
    .then((rows) => rows.filter((r) => r.subject.startsWith(`Reminders for ${day}`)));

async function sweep(day: string) {
  const collected = await env.ctx.db.transaction((tx) => collectDay(env.ctx, tx, day));
  await sendDigests(env.ctx);
  await env.ctx.mailer.deliverOutbox();
  return collected;
}

describe('the daily reminder sweep', () => {
  test('the first sweep mails each owner one digest of everything due or overdue, grouped by kind, with links', async () => {
    expect(await sweep(DAY)).toBe(true);
    const mail = await smtp.waitFor((m) => m.to.includes(owner.email) && m.subject.startsWith(`Reminders for ${DAY}`));
    expect(mail.subject).toBe(`Reminders for ${DAY}: 7 items due or overdue`);
    const body = mail.body;
    expect(body).toContain('Risk reviews due (1)\n  - Vendor lock-in: due ');
    expect(body).toContain('Control tests due (1)\n  - Quarterly access review: due ');
    expect(body).not.toContain('Control without schedule');
    expect(body).toContain(`Risk treatments past their due date (1)\n  - Second supplier: due ${addDays(DAY, -1)} (1 day overdue); Risk: Vendor lock-in`);
    expect(body).toContain(`Risk exceptions expiring (1)\n  - Legacy TLS: expires ${addDays(DAY, 7)} (in 7 days); not yet decided`);
    expect(body).not.toContain('Far exception');
    expect(body).toContain(`Audit findings past their deadline (1)\n  - Missing logs: due ${addDays(DAY, -10)} (10 days overdue)`);
    expect(body).toContain(`Evidence expiring (1)\n  - SOC 2 report: expires ${addDays(DAY, 30)} (in 30 days)`);
    expect(body).toContain('Account reviews open past their end (1)\n  - Q1 access review: due');
    expect(body).toContain('2 accounts not reviewed');
    expect(body).toMatch(/https:\/\/grc\.test\.example\/risks\/[0-9a-f-]{36}/);
    expect(body).toContain('https://grc.test.example/settings/my-notifications');
    expect(smtp.received.filter((m) => m.to.includes(owner.email) && m.subject.startsWith(`Reminders for ${DAY}`))).toHaveLength(1);
  }, 180_000);

  test('a group-owned record reminds the group\'s members; nobody is reminded of what they may not read, nor after turning digests off', async () => {
    const toMember = await smtp.waitFor((m) => m.to.includes(member.email) && m.subject.startsWith(`Reminders for ${DAY}`));
    expect(toMember.body).toContain('Group-owned risk');
    const digests = await digestsFor(DAY);
    const recipients = digests.flatMap((d) => d.to);
    expect(recipients).not.toContain(unreadable.email);
    expect(recipients).not.toContain(quiet.email);
    expect(digests.some((d) => d.body.includes('Risk its owner may not read'))).toBe(false);
  }, 180_000);

  test('a day is never sent twice: the same day again queues nothing; the next day repeats what is still due but not a milestone already reminded', async () => {
    const before = (await digestsFor(DAY)).length;
    expect(await sweep(DAY)).toBe(false);
    expect((await digestsFor(DAY)).length).toBe(before);
    const next = addDays(DAY, 1);
    await sweep(next);
    const [again] = (await digestsFor(next)).filter((d) => d.to.includes(owner.email));
    expect(again.body).toContain('Vendor lock-in');
    expect(again.body).not.toContain('Legacy TLS');
    expect(again.body).not.toContain('SOC 2 report');
    // The exception reaches its day: reminded again.
    await sweep(addDays(DAY, 7));
    const [onTheDay] = (await digestsFor(addDays(DAY, 7))).filter((d) => d.to.includes(owner.email));
    expect(onTheDay.body).toContain(`Legacy TLS: expires today (${addDays(DAY, 7)})`);
    const [run] = await env.ctx.db.select().from(reminderRuns).where(eq(reminderRuns.day, DAY));
    expect(run.finishedAt).not.toBeNull();
    const sent = await env.ctx.db.select({ details: auditLog.details }).from(auditLog).where(eq(auditLog.action, 'reminders.sent'));
    expect(sent.map((e) => (e.details as { day: string }).day)).toContain(DAY);
  }, 180_000);

  test('a sweep stopped between digests goes on where it stopped: those queued are not queued again', async () => {
    const day = addDays(DAY, 20);
    await env.ctx.db.transaction((tx) => collectDay(env.ctx, tx, day));
    const ledger = await env.ctx.db.select().from(reminderDigests).where(eq(reminderDigests.day, day));
    expect(ledger.length).toBeGreaterThanOrEqual(2);
    // As if the process died after queuing the owner's digest: its ledger row names its outbox row.
    const [early] = await env.ctx.db.insert(outbox).values({ kind: 'digest', recipients: [owner.email], subject: `Reminders for ${day}: queued before the stop`, body: '…' }).returning({ id: outbox.id });
    await env.ctx.db.update(reminderDigests).set({ outboxId: early.id, queuedAt: new Date() }).where(and(eq(reminderDigests.day, day), eq(reminderDigests.userId, owner.id)));
    await sendDigests(env.ctx);
    const digests = await digestsFor(day);
    expect(digests.filter((d) => d.to.includes(owner.email))).toHaveLength(1);
    expect(digests.filter((d) => d.to.includes(member.email))).toHaveLength(1);
    expect(await env.ctx.db.select().from(reminderDigests).where(and(eq(reminderDigests.day, day), inArray(reminderDigests.outboxId, [early.id])))).toHaveLength(1);
  }, 180_000);

  test('pausing stops the sweep from claiming a day; pausing and resuming are audited', async () => {
    const settings = await notificationSettings(env.ctx.db);
    await env.ctx.db.transaction((tx) => saveNotificationSettings(tx, admin, { ...settings, reminderHour: 0, paused: true }));
    const at = new Date(`${addDays(DAY, 40)}T12:00:00Z`);
    expect(await env.ctx.db.transaction((tx) => claimDueDay(env.ctx, tx, at))).toBe(false);
    expect(await env.ctx.db.select().from(reminderRuns).where(eq(reminderRuns.day, addDays(DAY, 40)))).toHaveLength(0);
    await env.ctx.db.transaction((tx) => saveNotificationSettings(tx, admin, { ...settings, reminderHour: 0, paused: false }));
    expect(await env.ctx.db.transaction((tx) => claimDueDay(env.ctx, tx, at))).toBe(true);
    await sendDigests(env.ctx);
    const actions = (await env.ctx.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.recordId, 'notifications'))).map((e) => e.action);
    expect(actions).toContain('reminders.pause');
    expect(actions).toContain('reminders.resume');
  }, 180_000);

  test('the preview shows who gets what at the next sweep, and a person\'s digest, without writing anything', async () => {
    const runs = (await env.ctx.db.select().from(reminderRuns)).length;
    const preview = await previewNextSweep(env.ctx.db, { offset: 0, limit: 500 }, new Date(`${addDays(DAY, 50)}T12:00:00Z`));
    expect(preview.day).toBe(addDays(DAY, 50));
    const row = preview.rows.find((r) => r.userId === owner.id)!;
    expect(row.kinds).toMatchObject({ riskReviews: 1, controlTests: 1, findingsOverdue: 1, accountReviewsOverdue: 1 });
    expect(preview.rows.some((r) => r.userId === quiet.id || r.userId === unreadable.id)).toBe(false);
    const digest = await previewDigest(env.ctx, owner.id, new Date(`${addDays(DAY, 50)}T12:00:00Z`));
    expect(digest?.email).toBe(owner.email);
    expect(digest?.body).toContain('Vendor lock-in');
    expect((await env.ctx.db.select().from(reminderRuns)).length).toBe(runs);
  }, 180_000);

  test('a group-owned record reminds only the members who may read it and get digests; an active owner who may not read it keeps it from the group', async () => {
    const day = addDays(DAY, 60);
    const system = systemActor();
    const { id: groupId } = await env.ctx.db.transaction((tx) => createGroup(tx, system, { name: unique('Risk owners') }));
    const reader = await makeUser(env, { 'risks:read': 'own' }, unique('rita.reader'));
    const nonReader = await makeUser(env, { 'controls:read': 'own' }, unique('nico.nonreader'));
    const optedOut = await makeUser(env, { 'risks:read': 'own' }, unique('otto.optedout'));
    await optedOut.actor().then((a) => env.ctx.db.transaction((tx) => saveMailPreferences(tx, a, { digests: false, ruleMails: true })));
    await env.ctx.db.transaction(async (tx) => {
      for (const person of [reader, nonReader, optedOut]) await addGroupMember(tx, system, groupId, person.id);
    });
    await makeRisk(env, admin, { title: 'Risk of the owners group', ownerId: null, ownerGroupId: groupId });
    await makeRisk(env, admin, { title: 'Risk whose owner may not read it', ownerId: unreadable.id, ownerGroupId: groupId });
    await sweep(day);
    const digests = await digestsFor(day);
    const toReader = digests.filter((d) => d.to.includes(reader.email));
    expect(toReader).toHaveLength(1);
    expect(toReader[0].body).toContain('Risk of the owners group');
    expect(toReader[0].body).not.toContain('Risk whose owner may not read it');
    expect(digests.filter((d) => d.to.includes(nonReader.email) || d.to.includes(optedOut.email) || d.to.includes(unreadable.email))).toHaveLength(0);
  }, 180_000);
});
