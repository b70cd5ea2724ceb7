import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTemplate, revokeRequest, saveResponse, sendRequest } from '../../src/modules/assessments/service';
import { runWrite } from '../../src/platform/http/context';
import { collectDay, sendDigests } from '../../src/platform/notifications/reminders';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { makeUser, unique, type TestUser } from '../helpers/factories';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';

/**
 * Questionnaires past their due date and not submitted feed the daily digest of their owner (the person who sent them):
 * not answered, a draft saved, or returned; never a submitted, revoked or not yet due one.
 */

let env: TestEnv;
let smtp: TestSmtp;
let sender: TestUser;
let colleague: TestUser;

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const DAY = addDays(new Date().toISOString().slice(0, 10), 400);
const titles = { late: unique('Hosting review'), lapsed: unique('Payroll vendor'), drafted: unique('Cloud backup'), soon: unique('Printer vendor'), submitted: unique('Answered vendor'), revoked: unique('Dropped vendor') };

beforeAll(async () => {
  smtp = await startTestSmtp();
  env = await startTestEnv({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'GRC <grc@test.example>', PUBLIC_URL: 'https://grc.test.example' });
  const rights = { 'assessments:read': 'own', 'assessments:create': 'own', 'assessments:update': 'own' } as const;
  sender = await makeUser(env, rights, unique('sam.sender'));
  colleague = await makeUser(env, rights, unique('cleo.colleague'));
  const actor = await sender.actor();
  const { id: templateId } = await runWrite(env.ctx, (tx) => createTemplate(tx, actor, {
    title: unique('Short check'), sections: [{ title: 'S', questions: [{ key: 'note', text: 'Anything to add?', kind: 'text', required: false, weight: 0 }] }],
  }));
  const send = (title: string, dueOn: string, respondentEmail = 'security@vendor.example') =>
    runWrite(env.ctx, (tx) => sendRequest(tx, actor, { templateId, title, respondentEmail, dueOn }, 'https://grc.test.example'));
  const secretOf = (url: string) => new URL(url).pathname.split('/')[2];
  await send(titles.late, addDays(DAY, -3), 'ops@hosting.example');
  await send(titles.lapsed, addDays(DAY, -20));
  const drafted = await send(titles.drafted, addDays(DAY, -1));
  await runWrite(env.ctx, (tx) => saveResponse(tx, secretOf(drafted.url), { note: 'half done' }, 0, false));
  await send(titles.soon, addDays(DAY, 5));
  const submitted = await send(titles.submitted, addDays(DAY, -3));
  await runWrite(env.ctx, (tx) => saveResponse(tx, secretOf(submitted.url), { note: 'all done' }, 0, true));
  const revoked = await send(titles.revoked, addDays(DAY, -3));
  await runWrite(env.ctx, (tx) => revokeRequest(tx, actor, revoked.id));
}, 120_000);

afterAll(async () => {
  await smtp.close();
});

describe('overdue questionnaires in the daily digest', () => {
  test('the sender is reminded of each one past its due date and not submitted, with to whom it went, where it stands and a link', async () => {
    expect(await env.ctx.db.transaction((tx) => collectDay(env.ctx, tx, DAY))).toBe(true);
    await sendDigests(env.ctx);
    // A delivery pass started by the invitations' writes may still run: the digest goes out with the next one.
    await env.ctx.mailer.deliverOutbox();
    await env.ctx.mailer.deliverOutbox();
    const mail = await smtp.waitFor((m) => m.to.includes(sender.email) && m.subject.startsWith(`Reminders for ${DAY}`));
    expect(mail.subject).toBe(`Reminders for ${DAY}: 3 items due or overdue`);
    expect(mail.body).toMatch(new RegExp([
      'Questionnaires past their due date, not submitted \\(3\\)',
      `  - ${titles.lapsed}: due ${addDays(DAY, -20)} \\(20 days overdue\\); sent to security@vendor\\.example; not answered yet; its link has expired: a reminder sends a new one`,
      '    https://grc\\.test\\.example/assessments/requests/[0-9a-f-]{36}',
      `  - ${titles.late}: due ${addDays(DAY, -3)} \\(3 days overdue\\); sent to ops@hosting\\.example; not answered yet`,
      '    https://grc\\.test\\.example/assessments/requests/[0-9a-f-]{36}',
      `  - ${titles.drafted}: due ${addDays(DAY, -1)} \\(1 day overdue\\); sent to security@vendor\\.example; a draft is saved, not submitted`,
      '    https://grc\\.test\\.example/assessments/requests/[0-9a-f-]{36}',
    ].join('\n')));
    for (const done of [titles.soon, titles.submitted, titles.revoked]) expect(mail.body).not.toContain(done);
    // The questionnaires are the sender's: a colleague with the same rights is not reminded of them, nor is the respondent.
    expect(smtp.received.some((m) => m.to.includes(colleague.email))).toBe(false);
    expect(smtp.received.some((m) => m.to.includes('ops@hosting.example') && m.subject.startsWith('Reminders'))).toBe(false);
  }, 120_000);
});
