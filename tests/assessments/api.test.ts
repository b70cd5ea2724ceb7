import { beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, sql } from 'drizzle-orm';
import { assessmentFiles, assessmentRequests, auditLog, outbox } from '../../db/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, classificationId, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { SHIPPED_TEMPLATES } from '../../src/modules/assessments/shipped';
import { assessmentClient, openPage, pathOf, pdf, postForm, VENDOR_ANSWERS } from './helpers';

let env: TestEnv;
let api: ReturnType<typeof assessmentClient>;
let admin: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await makeToken(env, await adminActor(env), [
    'assessments:read', 'assessments:create', 'assessments:update', 'thirdParties:read', 'thirdParties:create', 'audits:read', 'audits:create', 'risks:read', 'risks:create',
  ]);
  api = assessmentClient(env, admin);
});

interface Detail {
  id: string; status: string; score: number | null; templateVersion: number; thirdParty: { id: string; name: string } | null;
  answers: { key: string; shown: boolean; answer: unknown; answerText: string; weight: number; templateScore: number | null; reviewScore: number | null; comment: string }[];
}
const detail = (id: string) => api.send('GET', `/api/v1/assessments/requests/${id}`).then((r) => api.data<Detail>(r));
const mailsTo = (address: string) => env.ctx.db.select().from(outbox).where(sql`${address} = any(${outbox.recipients})`).orderBy(desc(outbox.id));

describe('assessment templates', () => {
  test('the two shipped templates are there, as written in shipped.ts, at version 1', async () => {
    for (const shipped of SHIPPED_TEMPLATES) {
      const id = await api.shipped(shipped.key);
      const template = await api.data<{ title: string; version: number; sections: unknown }>(await api.send('GET', `/api/v1/assessments/templates/${id}`));
      expect(template).toMatchObject({ title: shipped.title, version: 1 });
      expect(template.sections).toEqual(JSON.parse(JSON.stringify(shipped.sections)));
    }
  });

  test('a template with duplicate keys, missing choices and a condition on a later question is refused with every problem', async () => {
    const res = await api.send('POST', '/api/v1/assessments/templates', {
      title: 'Broken', sections: [{ title: 'One', questions: [
        { key: 'a', text: 'Shown when b', kind: 'text', required: true, weight: 0, showWhen: { question: 'b', equals: 'yes' } },
        { key: 'b', text: 'Pick', kind: 'single', required: true, weight: 1 },
        { key: 'b', text: 'Again', kind: 'yesno', required: false, weight: 1, choices: [{ value: 'y', label: 'Y', score: 100 }] },
      ] }],
    });
    expect(res.status).toBe(400);
    const error = ((await res.json()) as { error: string }).error;
    expect(error).toContain('sections.0.questions.0: its condition must name an earlier question (b is not one)');
    expect(error).toContain('sections.0.questions.1: a single question needs its choices with their scores');
    expect(error).toContain('sections.0.questions.2: the key b is used twice');
    expect(error).toContain('sections.0.questions.2: a yes/no question has exactly the choices yes and no');
  });

  test('changing the questions makes a new version; a request sent before keeps the version it was sent with', async () => {
    const sections = [{ title: 'Basics', questions: [{ key: 'policy', text: 'Do you have a security policy?', kind: 'yesno', required: true, weight: 1, choices: [{ value: 'yes', label: 'Yes', score: 100 }, { value: 'no', label: 'No', score: 0 }] }] }];
    const { id } = await api.data<{ id: string }>(await api.send('POST', '/api/v1/assessments/templates', { title: unique('Mini'), sections }));
    const sent = await api.sendRequest({ templateId: id });
    const changed = await api.data<{ version: number }>(await api.send('PATCH', `/api/v1/assessments/templates/${id}`, {
      sections: [{ ...sections[0], questions: [...sections[0].questions, { key: 'owner', text: 'Who owns it?', kind: 'text', required: true, weight: 0 }] }],
    }));
    expect(changed.version).toBe(2);
    const renamed = await api.data<{ version: number }>(await api.send('PATCH', `/api/v1/assessments/templates/${id}`, { title: 'Renamed only' }));
    expect(renamed.version).toBe(2);
    const request = await detail(sent.id);
    expect(request.templateVersion).toBe(1);
    expect(request.answers.map((a) => a.key)).toEqual(['policy']);
    const page = await openPage(env, pathOf(sent.url));
    expect(page.html).toContain('Do you have a security policy?');
    expect(page.html).not.toContain('Who owns it?');
  });
});

describe('a questionnaire sent to a third party and answered at its link', () => {
  test('sent, answered as a draft, resumed, submitted once, then read-only; mails go to the one outside address', async () => {
    const vendor = await api.thirdParty();
    const email = `${unique('sec')}@vendor.example`;
    const sent = await api.sendRequest({ templateId: await api.shipped('vendor-security'), thirdPartyId: vendor, respondentEmail: email, respondentName: 'Ada' });
    const secret = pathOf(sent.url).split('/')[2];
    const [stored] = await env.ctx.db.select().from(assessmentRequests).where(eq(assessmentRequests.id, sent.id));
    expect(stored.secretHash).toBe(new Bun.CryptoHasher('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(secret);
    const [invitation] = await mailsTo(email);
    expect(invitation).toMatchObject({ kind: 'assessment.invitation', recipients: [email] });
    expect(invitation.body).toContain(sent.url);

    // A draft may be incomplete; what was saved is there when the link is opened again.
    let page = await openPage(env, pathOf(sent.url));
    expect(page.res.status).toBe(200);
    expect(page.res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.res.headers.get('cache-control')).toBe('no-store');
    const draft = await postForm(env, pathOf(sent.url), page, { 'a-mfa': 'yes', 'a-securityContact': 'Ada' }, 'save');
    expect(draft.status, await draft.clone().text()).toBe(303);
    page = await openPage(env, `${pathOf(sent.url)}?saved=1`);
    expect(page.html).toContain('Your draft was saved');
    expect(page.html).toMatch(/name="a-mfa" value="yes"[^>]*checked/);
    expect((await detail(sent.id)).status).toBe('in_progress');

    // Submitting without every required answer names each missing one and saves nothing.
    const missing = await postForm(env, pathOf(sent.url), page, { 'a-mfa': 'yes', 'a-securityContact': 'Ada', 'a-hasCertification': 'yes' }, 'submit');
    expect(missing.status).toBe(400);
    const missingHtml = await missing.text();
    expect(missingHtml).toContain('There is a problem');
    expect(missingHtml).toContain('Question 1.2: attach a file: this question needs an answer');
    expect(missingHtml).toContain('Question 2.2: this question needs an answer');
    expect(missingHtml).toMatch(/name="a-hasCertification" value="yes"[^>]*checked/);
    expect((await detail(sent.id)).status).toBe('in_progress');

    const submitted = await postForm(env, pathOf(sent.url), page, VENDOR_ANSWERS(pdf()), 'submit');
    expect(submitted.status, await submitted.clone().text()).toBe(303);
    const after = await detail(sent.id);
    expect(after.status).toBe('submitted');
    // Weights 3, 3, 2, 2, 2 and 1: yes, yes, both encryptions, "elsewhere" (30 %), no incident, and a date the reviewer scores (0 until then).
    expect(after.score).toBe(Math.round((3 * 100 + 3 * 100 + 2 * 100 + 2 * 30 + 2 * 100 + 0) / 13));
    expect(after.answers.find((a) => a.key === 'certificate')).toMatchObject({ shown: true, answerText: 'iso27001.pdf' });
    expect(after.answers.find((a) => a.key === 'incidentDetails')).toMatchObject({ shown: false, answer: null });
    const [file] = await env.ctx.db.select().from(assessmentFiles).where(eq(assessmentFiles.requestId, sent.id));
    expect(file).toMatchObject({ thirdPartyId: vendor, name: 'iso27001.pdf', contentType: 'application/pdf', sha256: new Bun.CryptoHasher('sha256').update(await pdf().arrayBuffer()).digest('hex') });
    expect((await mailsTo(email)).map((m) => m.kind)).toContain('assessment.submitted');

    const readOnly = await openPage(env, pathOf(sent.url));
    expect(readOnly.html).toContain('can no longer be changed');
    expect(readOnly.html).not.toContain('<form');
    const again = await postForm(env, pathOf(sent.url), page, VENDOR_ANSWERS(pdf()), 'submit');
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('already submitted');
    expect(await env.ctx.db.select().from(assessmentFiles).where(eq(assessmentFiles.requestId, sent.id))).toHaveLength(1);
  });

  test('a wrong-type answer, an upload of a refused type and one over the limit are told on the page; nothing is written', async () => {
    const sent = await api.sendRequest({ templateId: await api.shipped('vendor-security') });
    const page = await openPage(env, pathOf(sent.url));
    const wrong = await postForm(env, pathOf(sent.url), page, { 'a-notifyHours': 'two days', 'a-restoreTested': '2026-02-30', 'a-mfa': 'maybe', 'a-securityContact': 'kept text' }, 'save');
    expect(wrong.status).toBe(400);
    const html = await wrong.text();
    expect(html).toContain('must be a number, such as 24');
    expect(html).toContain('must be a date written YYYY-MM-DD');
    expect(html).toContain('choose one of the answers offered');
    expect(html).toContain('kept text');
    const exe = await postForm(env, pathOf(sent.url), page, { 'a-hasCertification': 'yes', 'f-certificate': new File(['MZ...'], 'setup.exe') }, 'save');
    expect(exe.status).toBe(400);
    expect(await exe.text()).toContain('setup.exe is not a file type taken here');
    const disguised = await postForm(env, pathOf(sent.url), page, { 'a-hasCertification': 'yes', 'f-certificate': new File([new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0, 0])], 'report.pdf') }, 'save');
    expect(disguised.status).toBe(400);
    expect(await disguised.text()).toContain('report.pdf is not a PDF, image, text or office document');
    const big = await postForm(env, pathOf(sent.url), page, { 'a-hasCertification': 'yes', 'f-certificate': new File([new Uint8Array(10 * 1024 * 1024 + 1)], 'big.pdf') }, 'save');
    expect(big.status).toBe(400);
    expect(await big.text()).toContain('big.pdf is larger than the 10 MB a file may be');
    const row = await detail(sent.id);
    expect(row.status).toBe('sent');
    expect(row.answers.every((a) => a.answer === null)).toBe(true);
    expect(await env.ctx.db.select().from(assessmentFiles).where(eq(assessmentFiles.requestId, sent.id))).toHaveLength(0);
  });

  test('two tabs submitting the same link at once: one wins, the other is told', async () => {
    const sent = await api.sendRequest({ templateId: await api.shipped('dpia-screening') });
    const page = await openPage(env, pathOf(sent.url));
    const answers = { 'a-purpose': 'Payroll', 'a-specialData': 'no', 'a-largeScale': 'no', 'a-vulnerable': 'yes', 'a-techniques': ['none'], 'a-combining': 'no', 'a-transfer': 'no' };
    const [a, b] = await Promise.all([postForm(env, pathOf(sent.url), page, answers, 'submit'), postForm(env, pathOf(sent.url), page, answers, 'submit')]);
    expect([a.status, b.status].sort()).toEqual([303, 409]);
    const loser = a.status === 409 ? a : b;
    expect(await loser.text()).toMatch(/already submitted|changed in another window/);
    const submits = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, sent.id), eq(auditLog.action, 'submit')));
    expect(submits).toHaveLength(1);
    expect((await detail(sent.id)).score).toBe(Math.round((3 * 100 + 2 * 100 + 2 * 0 + 3 * 100 + 100 + 100) / 12));
  });

  test('a form posted without its CSRF token is refused and audited', async () => {
    const sent = await api.sendRequest({ templateId: await api.shipped('dpia-screening') });
    const page = await openPage(env, pathOf(sent.url));
    expect(await refusalOf(env, () => postForm(env, pathOf(sent.url), { ...page, csrf: 'forged' }, { 'a-purpose': 'x' }, 'save')))
      .toEqual(refusedWith(403, undefined, 'assessment form CSRF token missing or wrong'));
    expect(await refusalOf(env, () => postForm(env, pathOf(sent.url), { ...page, cookie: '' }, { 'a-purpose': 'x' }, 'save')))
      .toEqual(refusedWith(403, undefined, 'assessment form CSRF token missing or wrong'));
  });
});

describe('bad links', () => {
  test('malformed, guessed, replaced, revoked, expired and accepted links get one identical 404, each audited with its reason', async () => {
    const templateId = await api.shipped('dpia-screening');
    const replaced = await api.sendRequest({ templateId });
    await api.data(await api.send('POST', `/api/v1/assessments/requests/${replaced.id}/remind`));
    const revoked = await api.sendRequest({ templateId });
    await api.data(await api.send('POST', `/api/v1/assessments/requests/${revoked.id}/revoke`));
    const expired = await api.sendRequest({ templateId });
    await env.ctx.db.update(assessmentRequests).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(assessmentRequests.id, expired.id));
    const accepted = await api.sendRequest({ templateId });
    await env.ctx.db.update(assessmentRequests).set({ status: 'accepted' }).where(eq(assessmentRequests.id, accepted.id));
    const cases: [string, string][] = [
      ['/assess/not-a-token', 'assessment link malformed'],
      [`/assess/${'A'.repeat(43)}`, 'assessment link unknown (guessed, or replaced by a newer link)'],
      [pathOf(replaced.url), 'assessment link unknown (guessed, or replaced by a newer link)'],
      [pathOf(revoked.url), 'assessment link revoked'],
      [pathOf(expired.url), 'assessment link expired'],
      [pathOf(accepted.url), 'assessment link closed: its answers were accepted'],
    ];
    const bodies = new Set<string>();
    for (const [path, reason] of cases) {
      let body = '';
      const refusal = await refusalOf(env, async () => {
        const res = await env.request(path);
        body = await res.clone().text();
        return res;
      });
      expect(refusal, path).toEqual(refusedWith(404, undefined, reason));
      bodies.add(body);
      const posted = await refusalOf(env, () => env.request(path, { method: 'POST', body: new FormData() }));
      expect(posted.status).toBe(404);
    }
    expect(bodies.size).toBe(1);
    expect([...bodies][0]).not.toContain('expired');
  });
});

describe('review', () => {
  async function submittedVendorRequest(thirdPartyId?: string) {
    const sent = await api.sendRequest({ templateId: await api.shipped('vendor-security'), ...(thirdPartyId ? { thirdPartyId } : {}) });
    const page = await openPage(env, pathOf(sent.url));
    expect((await postForm(env, pathOf(sent.url), page, VENDOR_ANSWERS(pdf()), 'submit')).status).toBe(303);
    return sent;
  }

  test('the reviewer scores and comments per answer, the score follows; returning opens a new link, accepting closes it', async () => {
    const sent = await submittedVendorRequest();
    const reviewed = await api.data<Detail>(await api.send('POST', `/api/v1/assessments/requests/${sent.id}/review`, {
      answers: [{ key: 'restoreTested', score: 100, comment: 'Recent enough' }, { key: 'dataLocation', comment: 'Which country?' }],
    }));
    expect(reviewed.answers.find((a) => a.key === 'restoreTested')).toMatchObject({ weight: 1, reviewScore: 100, comment: 'Recent enough', templateScore: null });
    expect(reviewed.answers.find((a) => a.key === 'dataLocation')).toMatchObject({ weight: 2, templateScore: 30, reviewScore: null, comment: 'Which country?' });
    expect(reviewed.score).toBe(Math.round((300 + 300 + 200 + 60 + 200 + 100) / 13));
    const unknown = await api.send('POST', `/api/v1/assessments/requests/${sent.id}/review`, { answers: [{ key: 'nope', score: 1 }] });
    expect(unknown.status).toBe(400);

    const returned = await api.data<{ url: string }>(await api.send('POST', `/api/v1/assessments/requests/${sent.id}/return`, { message: 'Please name the country.' }));
    expect(returned.url).not.toBe(sent.url);
    expect((await env.request(pathOf(sent.url))).status).toBe(404);
    const page = await openPage(env, pathOf(returned.url));
    expect(page.html).toContain('returned for changes');
    expect(page.html).toContain('<form');
    expect((await postForm(env, pathOf(returned.url), page, { ...VENDOR_ANSWERS(pdf()), 'a-dataLocation': 'eea' }, 'submit')).status).toBe(303);
    const resubmitted = await detail(sent.id);
    expect(resubmitted.status).toBe('submitted');

    const accepted = await api.data<Detail>(await api.send('POST', `/api/v1/assessments/requests/${sent.id}/accept`));
    expect(accepted.status).toBe('accepted');
    expect((await env.request(pathOf(returned.url))).status).toBe(404);
    expect((await api.send('POST', `/api/v1/assessments/requests/${sent.id}/accept`)).status).toBe(409);
    const history = await api.data<{ action: string }[]>(await api.send('GET', `/api/v1/assessments/requests/${sent.id}/history`));
    expect(history.map((h) => h.action)).toEqual(expect.arrayContaining(['create', 'submit', 'review', 'return', 'accept']));
  });

  test('a finding or a risk from an answer needs that module\'s create right too: 403 otherwise, audited, nothing written', async () => {
    const sent = await submittedVendorRequest(await api.thirdParty());
    const reviewer = await makeUser(env, { 'assessments:read': 'all', 'assessments:update': 'all', 'audits:read': 'all', 'risks:read': 'all', 'apiTokens:create': 'own' });
    const token = await makeToken(env, await reviewer.actor('api'), ['assessments:read', 'assessments:update', 'audits:read', 'risks:read']);
    const scoped = await makeToken(env, await reviewer.actor('api'), ['assessments:read', 'assessments:update', 'audits:read', 'audits:create', 'risks:read', 'risks:create']).catch(() => null);
    const plan = await api.data<{ id: string }>(await api.send('POST', '/api/v1/audits', { title: unique('Supplier audit') }));
    const risk = { key: 'dataLocation', title: 'Data stored outside adequate countries', classificationId: await classificationId(env), likelihood: 3, impact: 3 };
    expect(await refusalOf(env, () => api.send('POST', `/api/v1/assessments/requests/${sent.id}/risks`, risk, token)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope risks:create missing'));
    expect(await refusalOf(env, () => api.send('POST', `/api/v1/assessments/requests/${sent.id}/findings`, { key: 'mfa', auditPlanId: plan.id, title: 'x' }, token)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope audits:create missing'));
    if (scoped) {
      expect(await refusalOf(env, () => api.send('POST', `/api/v1/assessments/requests/${sent.id}/risks`, risk, scoped)))
        .toEqual(refusedWith(403, 'forbidden', "token creator's right risks:create missing"));
    }
    const before = await api.data<{ action: string }[]>(await api.send('GET', `/api/v1/assessments/requests/${sent.id}/history`));
    expect(before.map((h) => h.action)).not.toContain('risk.create');

    const created = await api.data<{ id: string }>(await api.send('POST', `/api/v1/assessments/requests/${sent.id}/risks`, risk));
    const riskView = await api.data<{ title: string; description: string }>(await api.send('GET', `/api/v1/risks/${created.id}`));
    expect(riskView.title).toBe(risk.title);
    expect(riskView.description).toContain('Where is our data stored and processed?": Elsewhere');
    const finding = await api.data<{ id: string }>(await api.send('POST', `/api/v1/assessments/requests/${sent.id}/findings`, { key: 'mfa', auditPlanId: plan.id, title: 'MFA to check on site' }));
    expect(finding.id).toMatch(/^[0-9a-f-]{36}$/);
    const history = await api.data<{ action: string }[]>(await api.send('GET', `/api/v1/assessments/requests/${sent.id}/history`));
    expect(history.map((h) => h.action)).toEqual(expect.arrayContaining(['risk.create', 'finding.create']));
  });

  test('at the own level a reviewer reads and reviews only questionnaires they own; without the scope they are refused', async () => {
    const sent = await submittedVendorRequest();
    const person = await makeUser(env, { 'assessments:read': 'own', 'assessments:update': 'own', 'assessments:create': 'own', 'apiTokens:create': 'own' });
    const token = await makeToken(env, await person.actor('api'), ['assessments:read', 'assessments:update', 'assessments:create']);
    expect(await refusalOf(env, () => api.send('GET', `/api/v1/assessments/requests/${sent.id}`, undefined, token)))
      .toEqual(refusedWith(404, 'Assessment request <id> not found', 'no assessments:read on Assessment request <id>'));
    const list = await api.data<{ rows: unknown[] }>(await api.send('GET', '/api/v1/assessments/requests', undefined, token));
    expect(list.rows).toHaveLength(0);
    const readOnly = await makeToken(env, await person.actor('api'), ['assessments:read']);
    expect(await refusalOf(env, () => api.send('POST', '/api/v1/assessments/requests', { templateId: sent.id, respondentEmail: 'a@b.example', dueOn: '2099-01-01' }, readOnly)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope assessments:create missing'));
  });

  test('a request to no valid address or with a past due date is refused with both problems', async () => {
    const res = await api.send('POST', '/api/v1/assessments/requests', { templateId: await api.shipped('dpia-screening'), respondentEmail: 'two@a.example, b@c.example', dueOn: '2001-01-01' });
    expect(res.status).toBe(400);
    const error = ((await res.json()) as { error: string }).error;
    expect(error).toContain('respondentEmail: must be one e-mail address');
    expect(error).toContain('dueOn: must not be in the past');
  });
});
