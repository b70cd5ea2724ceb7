import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, history, notificationRules, outbox } from '../../db/schema';
import { assetKind } from '../../src/modules/assets/service';
import { setUserStatus } from '../../src/modules/people/service';
import { riskKind } from '../../src/modules/risks/service';
import { recordRiskReview } from '../../src/modules/risks/treatments-service';
import { createRecord, updateRecord } from '../../src/platform/records/records';
import { makeRuleMails } from '../../src/platform/notifications/rule-mails';
import { createRule, deleteRule, updateRule, type NotificationRuleInput } from '../../src/platform/notifications/rules';
import { saveMailPreferences, saveMailSettings } from '../../src/platform/notifications/settings';
import type { Actor } from '../../src/platform/permissions/permissions';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique, type TestUser } from '../helpers/factories';
import { selfSignedCertificate, startTestSmtp, type TestSmtp } from '../helpers/smtp';
import { signedInBrowser } from '../helpers/browser';

/**
 * Notification rules mail over a real SMTP server (STARTTLS and authentication, as Settings › Mail configures it):
 * one mail per person and change, names not ids, "(restricted)" for linked records the reader may not read, nobody
 * mailed about a record they may not read.
 */

let env: TestEnv;
let smtp: TestSmtp;
let admin: Actor;
let owner: TestUser;
let watcher: TestUser;
const tls = selfSignedCertificate();

beforeAll(async () => {
  smtp = await startTestSmtp({
    key: tls.key, cert: tls.cert, authOptional: false, authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === 'grc-mailer' && auth.password === 'smtp secret') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
  });
  env = await startTestEnv({ MAIL_FROM: 'GRC <grc@test.example>' });
  admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => saveMailSettings(tx, admin, env.ctx.config, {
    host: '127.0.0.1', port: smtp.port, security: 'starttls', username: 'grc-mailer', password: 'smtp secret', from: 'GRC Notifications <notify@test.example>',
    domains: ['test.example'], caCertificate: tls.cert,
  }));
  owner = await makeUser(env, { 'risks:read': 'own', 'risks:update': 'own', 'risks:create': 'own' }, unique('olivia.owner'));
  watcher = await makeUser(env, { 'risks:read': 'all' }, unique('walter.watcher'));
}, 180_000);

afterAll(async () => {
  await smtp.close();
});

const rule = (over: Partial<NotificationRuleInput>): NotificationRuleInput => ({
  name: unique('rule'), recordType: 'risk', event: 'changed', field: null, value: null, notifyOwner: false, notifyOwnerGroup: false,
  userIds: [], groupIds: [], addresses: [], enabled: true, ...over,
});

async function withRule<T>(input: Partial<NotificationRuleInput>, work: () => Promise<T>): Promise<T> {
  const { id } = await env.ctx.db.transaction((tx) => createRule(tx, admin, rule(input)));
  try {
    return await work();
  } finally {
    await env.ctx.db.transaction((tx) => deleteRule(tx, admin, id));
  }
}

/** Makes the rule mails of what committed and delivers them. */
async function deliver() {
  await makeRuleMails(env.ctx);
  await env.ctx.mailer.deliverOutbox();
}

const ruleMailsAbout = async (title: string) => (await env.ctx.db.select().from(outbox).where(eq(outbox.kind, 'rule'))).filter((m) => m.subject.includes(title));

describe('rule mails', () => {
  test('a status change mails the named person over SMTP with STARTTLS and authentication: title, old → new by label, who, link', async () => {
    const title = unique('Ledger loss');
    const riskId = await makeRisk(env, await owner.actor(), { title });
    await withRule({ event: 'status_changed', value: 'closed', userIds: [watcher.id], notifyOwner: true }, async () => {
      const ownerActor = await owner.actor();
      await env.ctx.db.transaction((tx) => updateRecord(tx, riskKind, ownerActor, riskId, { status: 'closed' }));
      await deliver();
      // The first STARTTLS handshake of the run can take a while on a busy machine.
      const mail = await smtp.waitFor((m) => m.subject.includes(title), 90_000);
      expect(mail.to).toEqual([watcher.email]);
      expect(mail.from).toBe('notify@test.example');
      expect(mail.secure).toBe(true);
      expect(mail.user).toBe('grc-mailer');
      expect(mail.subject).toBe(`Risk changed: ${title}`);
      const ownerName = owner.email.split('@')[0];
      expect(mail.body).toContain(`${ownerName} changed the risk "${title}"`);
      expect(mail.body).toContain('in the app');
      expect(mail.body).toContain('Status: Open → Closed');
      expect(mail.body).toContain(`Open it: http://localhost:3000/risks/${riskId}`);
      expect(mail.body).not.toContain(owner.id);
      // The owner made the change: they are not told of it.
      expect(smtp.received.filter((m) => m.subject.includes(title)).map((m) => m.to).flat()).not.toContain(owner.email);
    });
  }, 180_000);

  test('two matching rules make one mail per person, naming both rules', async () => {
    const title = unique('Two rules');
    const riskId = await makeRisk(env, admin, { title });
    const second = await makeUser(env, { 'risks:read': 'all' });
    await withRule({ name: 'Any change', event: 'changed', userIds: [watcher.id, second.id] }, () =>
      withRule({ name: 'Title watch', event: 'field_changed', field: 'title', userIds: [watcher.id] }, async () => {
        await env.ctx.db.transaction((tx) => updateRecord(tx, riskKind, admin, riskId, { title: `${title} (renamed)` }));
        await deliver();
        const mails = await ruleMailsAbout(title);
        expect(mails.map((m) => m.recipients[0]).sort()).toEqual([watcher.email, second.email].sort());
        const toWatcher = mails.find((m) => m.recipients[0] === watcher.email)!;
        expect(toWatcher.body).toContain('"Any change", "Title watch"');
        expect(toWatcher.body).toContain(`Title: ${title} → ${title} (renamed)`);
      }));
  }, 180_000);

  test('a linked record the reader may not read is "(restricted)"; a record they may not read mails them nothing', async () => {
    const assetName = unique('Payroll server');
    const { id: assetId } = await env.ctx.db.transaction((tx) => createRecord(tx, assetKind, admin, { name: assetName }));
    const title = unique('Payroll outage');
    const riskId = await makeRisk(env, await owner.actor(), { title });
    const assetReader = await makeUser(env, { 'risks:read': 'all', 'assets:read': 'all' });
    const stranger = await makeUser(env, { 'risks:read': 'own' });
    await withRule({ event: 'field_changed', field: 'assetId', userIds: [watcher.id, assetReader.id, stranger.id] }, async () => {
      await env.ctx.db.transaction((tx) => updateRecord(tx, riskKind, admin, riskId, { assetId }));
      await deliver();
      const mails = await ruleMailsAbout(title);
      expect(mails.map((m) => m.recipients[0]).sort()).toEqual([watcher.email, assetReader.email].sort());
      expect(mails.find((m) => m.recipients[0] === watcher.email)!.body).toContain('Asset: (none) → (restricted)');
      expect(mails.find((m) => m.recipients[0] === assetReader.email)!.body).toContain(`Asset: (none) → ${assetName}`);
      for (const mail of mails) expect(mail.body).not.toContain(assetId);
    });
  }, 180_000);

  test('a review recorded on a risk mails the owner group; assigning mails the new owner', async () => {
    const title = unique('Reviewed risk');
    const riskId = await makeRisk(env, admin, { title, ownerId: null, ownerGroupId: owner.groupId });
    await withRule({ event: 'recorded', value: 'review', notifyOwnerGroup: true }, () =>
      withRule({ event: 'assigned', notifyOwner: true }, async () => {
        await env.ctx.db.transaction((tx) => recordRiskReview(tx, admin, riskId, { reviewedOn: '2026-01-05', outcome: 'no_change' }));
        await env.ctx.db.transaction((tx) => updateRecord(tx, riskKind, admin, riskId, { ownerId: watcher.id }));
        await deliver();
        const mails = await ruleMailsAbout(title);
        const review = mails.find((m) => m.subject.startsWith('Review recorded'))!;
        expect(review.recipients).toEqual([owner.email]);
        expect(review.subject).toBe(`Review recorded on risk "${title}"`);
        const assigned = mails.find((m) => m.body.includes('Owner: (none) →'))!;
        expect(assigned.recipients).toEqual([watcher.email]);
        expect(assigned.body).toContain(`Owner: (none) → ${watcher.email.split('@')[0]}`);
      }));
  }, 180_000);

  test('a person who turned rule mails off, and a deactivated one, get none; the rules page reports the deactivated one', async () => {
    const title = unique('Quiet risk');
    const riskId = await makeRisk(env, admin, { title });
    const quiet = await makeUser(env, { 'risks:read': 'all' });
    const leaver = await makeUser(env, { 'risks:read': 'all' }, unique('lee.leaver'));
    await quiet.actor().then((a) => env.ctx.db.transaction((tx) => saveMailPreferences(tx, a, { digests: true, ruleMails: false })));
    await env.ctx.db.transaction((tx) => setUserStatus(tx, admin, leaver.id, 'deactivated'));
    await withRule({ name: 'Quiet rule', event: 'changed', userIds: [quiet.id, leaver.id, watcher.id] }, async () => {
      await env.ctx.db.transaction((tx) => updateRecord(tx, riskKind, admin, riskId, { description: 'changed' }));
      await deliver();
      expect((await ruleMailsAbout(title)).map((m) => m.recipients[0])).toEqual([watcher.email]);
      const page = await (await signedInBrowser(env, 'admin@test.example', 'correct horse battery staple')).get('/settings/notifications');
      expect(await page.text()).toContain(`Skipped while deactivated: ${leaver.email.split('@')[0]}`);
    });
  }, 180_000);

  test('a fixed address of the organisation gets the mail as the rule author may read it', async () => {
    const title = unique('Shared mailbox');
    const riskId = await makeRisk(env, admin, { title });
    await withRule({ event: 'deleted', addresses: ['Risk-Committee@Test.example'] }, async () => {
      const { deleteRecord } = await import('../../src/platform/records/records');
      await env.ctx.db.transaction((tx) => deleteRecord(tx, riskKind, admin, riskId));
      await deliver();
      const mail = await smtp.waitFor((m) => m.subject === `Risk deleted: ${title}`);
      expect(mail.to).toEqual(['risk-committee@test.example']);
      expect(mail.body).toContain('Sent to risk-committee@test.example by the notification rule');
      expect(mail.body).not.toContain('Open it');
    });
  }, 180_000);
});

describe('rules refuse what does not exist, and outside addresses', () => {
  const refusal = async (input: Partial<NotificationRuleInput>) => {
    try {
      await env.ctx.db.transaction((tx) => createRule(tx, admin, rule({ userIds: [watcher.id], ...input })));
    } catch (error) {
      return (error as { problems: { field: string; message: string }[] }).problems;
    }
    throw new Error('the rule was accepted');
  };

  test('a record type, event, field or status that does not exist', async () => {
    expect(await refusal({ recordType: 'spaceship' })).toEqual([{ field: 'recordType', message: 'there is no record type "spaceship"' }]);
    expect((await refusal({ event: 'exploded' as NotificationRuleInput['event'] }))[0].field).toBe('event');
    expect(await refusal({ event: 'field_changed', field: 'colour' })).toEqual([{ field: 'field', message: 'Risk has no field "colour"' }]);
    expect(await refusal({ event: 'status_changed', value: 'on_fire' })).toEqual([{ field: 'value', message: '"on_fire" is not a status of risks' }]);
    expect(await refusal({ recordType: 'riskTreatment', event: 'recorded' })).toEqual([{ field: 'event', message: 'nothing is recorded on risk treatments beyond their changes' }]);
  }, 180_000);

  test('an address outside the organisation\'s mail domains is refused, and a rule needs a recipient', async () => {
    const [outside] = await refusal({ addresses: ['someone@gmail.com'] });
    expect(outside.field).toBe('addresses');
    expect(outside.message).toContain("someone@gmail.com is outside the organisation's mail domains (test.example)");
    expect(await refusal({ userIds: [] })).toEqual([{ field: 'recipients', message: 'choose at least one recipient' }]);
  }, 180_000);

  test('creating, changing and deleting a rule is in the Audit Log and History', async () => {
    const { id } = await env.ctx.db.transaction((tx) => createRule(tx, admin, rule({ name: 'Audited rule', userIds: [watcher.id] })));
    await env.ctx.db.transaction((tx) => updateRule(tx, admin, id, rule({ name: 'Audited rule', userIds: [watcher.id], enabled: false })));
    await env.ctx.db.transaction((tx) => deleteRule(tx, admin, id));
    const entries = await env.ctx.db.select({ action: auditLog.action }).from(auditLog).where(and(eq(auditLog.recordType, 'notificationRule'), eq(auditLog.recordId, id)));
    expect(entries.map((e) => e.action)).toEqual(['create', 'update', 'delete']);
    const changes = await env.ctx.db.select({ changes: history.changes }).from(history).where(and(eq(history.recordType, 'notificationRule'), eq(history.recordId, id), eq(history.action, 'update')));
    expect(changes[0].changes).toEqual({ enabled: { before: true, after: false } });
    expect(await env.ctx.db.select().from(notificationRules).where(eq(notificationRules.id, id))).toHaveLength(0);
  }, 180_000);
});
