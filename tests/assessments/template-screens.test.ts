import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { assessmentClient, openPage, pathOf, postForm } from './helpers';

/**
 * Templates on screen: written as text, created, changed (a change of the questions publishes a new version, a
 * questionnaire sent before keeps its own), refused with every problem by line and the text kept; and History and the
 * Audit Log naming templates and questionnaires by their titles.
 */

let env: TestEnv;
let api: ReturnType<typeof assessmentClient>;
beforeAll(async () => {
  env = await testEnv();
  api = assessmentClient(env, await makeToken(env, await adminActor(env), ['assessments:read', 'assessments:create', 'assessments:update']));
});

const TEXT = [
  'Section: Basics',
  'Question policy (yes or no, required, weight 2)',
  'Do you have a security policy?',
  '',
  'Question policyOwner (text, required, when policy is Yes)',
  'Who owns it?',
].join('\n');
const idFrom = (location: string | null) => /\/assessments\/templates\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

describe('template screens', () => {
  test('a template is written, refused with each problem by line and everything typed kept, then created, changed and published as version 2', async () => {
    const person = await makeUser(env, { 'assessments:read': 'own', 'assessments:create': 'own', 'assessments:update': 'own' });
    const b = await signedInBrowser(env, person.email, person.password);
    const list = await (await b.get('/assessments/templates')).text();
    expect(list).toContain('href="/assessments/templates/new"');
    const form = await (await b.get('/assessments/templates/new')).text();
    expect(form).toContain('Question policy (yes or no, required, weight 2)');

    const title = unique('Cloud supplier questionnaire');
    const broken = `${TEXT}\n\nQuestion later (one choice, when nothing is yes)\nWhat?\n- a: A`;
    const refused = await b.post('/assessments/templates', { title, description: 'For hosting suppliers', sections: broken });
    expect(refused.status).toBe(400);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain('The template was not created');
    expect(refusedHtml).toContain('Questions: line 8: a question with choices needs at least two');
    expect(refusedHtml).toContain(`value="${title}"`);
    expect(refusedHtml).toContain('For hosting suppliers</textarea>');
    expect(refusedHtml).toContain('Question later (one choice, when nothing is yes)');
    // The service's rules are told at the line of the question too.
    const noEarlier = await b.post('/assessments/templates', { title, description: '', sections: `${TEXT}\n\nQuestion later (text, when nothing is yes)\nWhat?` });
    expect(noEarlier.status).toBe(400);
    expect(await noEarlier.text()).toContain('Questions: line 8 (question 1.3): its condition must name an earlier question (nothing is not one)');

    const created = await b.post('/assessments/templates', { title, description: 'For hosting suppliers', sections: TEXT });
    expect(created.status, await created.clone().text()).toBe(303);
    const id = idFrom(created.headers.get('location'));
    const page = await (await b.get(`/assessments/templates/${id}?done=created`)).text();
    expect(page).toContain('The template was created as version 1.');
    expect(page).toContain('asked when the answer to 1.1 is &quot;Yes&quot;');
    expect(page).toContain(`href="/assessments/requests/new?templateId=${id}"`);

    // A questionnaire sent now keeps version 1 whatever the template becomes.
    const sent = await api.sendRequest({ templateId: id });
    const edit = await (await b.get(`/assessments/templates/${id}/edit`)).text();
    expect(edit).toContain('Publish version 2');
    expect(edit).toContain('Question policyOwner (text, required, when policy is yes)');
    const published = await b.post(`/assessments/templates/${id}`, {
      title, description: 'For hosting suppliers', expectedVersion: '1',
      sections: `${TEXT}\n\nQuestion staff (number, weight 1)\nHow many staff can reach our data?`,
    });
    expect(published.status, await published.clone().text()).toBe(303);
    expect(published.headers.get('location')).toBe(`/assessments/templates/${id}?done=published`);
    const after = await (await b.get(`/assessments/templates/${id}?done=published`)).text();
    expect(after).toContain('Version 2 was published. Questionnaires sent before keep the version they were sent with.');
    expect(after).toContain('How many staff can reach our data?');
    expect(after).toContain('id="template-history"');
    const respondent = await openPage(env, pathOf(sent.url));
    expect(respondent.html).toContain('Who owns it?');
    expect(respondent.html).not.toContain('How many staff');
    expect((await api.data<{ templateVersion: number }>(await api.send('GET', `/api/v1/assessments/requests/${sent.id}`))).templateVersion).toBe(1);

    // A title change alone keeps the version.
    const renamed = await b.post(`/assessments/templates/${id}`, {
      title: `${title} v2`, description: '', expectedVersion: '2', sections: `${TEXT}\n\nQuestion staff (number, weight 1)\nHow many staff can reach our data?`,
    });
    expect(renamed.headers.get('location')).toBe(`/assessments/templates/${id}?done=saved`);

    // Someone who opened version 1 and publishes now is told, and keeps what they typed.
    const stale = await b.post(`/assessments/templates/${id}`, { title, description: '', expectedVersion: '1', sections: `${TEXT}\n\nQuestion late (text)\nMy late change` });
    expect(stale.status).toBe(409);
    const staleHtml = await stale.text();
    expect(staleHtml).toContain('This template was changed since version 1 was opened: version 2 is current now. Nothing was saved');
    expect(staleHtml).toContain('My late change');
  });

  test('a shipped template is copied into a new one; changing it needs the all level (403, audited)', async () => {
    const person = await makeUser(env, { 'assessments:read': 'own', 'assessments:create': 'own', 'assessments:update': 'own' });
    const b = await signedInBrowser(env, person.email, person.password);
    const shipped = await api.shipped('dpia-screening');
    const page = await (await b.get(`/assessments/templates/${shipped}`)).text();
    expect(page).not.toContain(`/assessments/templates/${shipped}/edit`);
    const copy = await (await b.get(`/assessments/templates/new?from=${shipped}`)).text();
    expect(copy).toContain('value="DPIA screening (copy)"');
    expect(copy).toContain('Question transfer (yes or no, required, weight 1)');
    expect(await refusalOf(env, () => b.get(`/assessments/templates/${shipped}/edit`)))
      .toEqual(refusedWith(403, undefined, `assessments:update is at level own and Assessment template ${shipped} is shipped with the service (no owner)`));
  });
});

describe('publishing over REST', () => {
  test('a PATCH made on an older version than the current one is refused 409, naming both versions, and changes nothing', async () => {
    const sections = (text: string) => [{ title: 'S', questions: [{ key: 'why', text, kind: 'text', required: false, weight: 0 }] }];
    const { id } = await api.data<{ id: string }>(await api.send('POST', '/api/v1/assessments/templates', { title: unique('Versioned'), sections: sections('Why?') }));
    expect((await api.data<{ version: number }>(await api.send('PATCH', `/api/v1/assessments/templates/${id}`, { sections: sections('Why, really?'), expectedVersion: 1 }))).version).toBe(2);
    const stale = await api.send('PATCH', `/api/v1/assessments/templates/${id}`, { sections: sections('Late change'), expectedVersion: 1 });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: string }).error).toContain('This template was changed since version 1 was opened: version 2 is current now');
    const current = await api.data<{ version: number; sections: { questions: { text: string }[] }[] }>(await api.send('GET', `/api/v1/assessments/templates/${id}`));
    expect(current.version).toBe(2);
    expect(current.sections[0].questions[0].text).toBe('Why, really?');
  });
});

describe('History and the Audit Log name questionnaires and templates', () => {
  test('entries show the template\'s and the questionnaire\'s titles with their labels, statuses by label, and the respondent\'s draft', async () => {
    const title = unique('Named template');
    const { id: templateId } = await api.data<{ id: string }>(await api.send('POST', '/api/v1/assessments/templates', {
      title, sections: [{ title: 'S', questions: [{ key: 'why', text: 'Why?', kind: 'text', required: false, weight: 0 }] }],
    }));
    const sent = await api.sendRequest({ templateId, title: unique('Named questionnaire') });
    const link = await openPage(env, pathOf(sent.url));
    expect((await postForm(env, pathOf(sent.url), link, { 'a-why': 'Because' }, 'submit')).status).toBe(303);
    const requestTitle = (await api.data<{ title: string }>(await api.send('GET', `/api/v1/assessments/requests/${sent.id}`))).title;

    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const audit = await (await admin.get(`/settings/audit?record=${sent.id}`)).text();
    expect(audit).toContain(`<a href="/assessments/requests/${sent.id}">${requestTitle}</a><br/><span class="muted">Questionnaire</span>`);
    expect(audit).not.toContain('Assessment request');
    const templateAudit = await (await admin.get(`/settings/audit?record=${templateId}`)).text();
    expect(templateAudit).toContain(`<a href="/assessments/templates/${templateId}">${title}</a><br/><span class="muted">Questionnaire template</span>`);

    const requestPage = await (await admin.get(`/assessments/requests/${sent.id}`)).text();
    const history = requestPage.slice(requestPage.indexOf('id="request-history"'));
    expect(history).toContain('<span>Sent</span> → <span>Submitted</span>');
    expect(history).toContain('Sent to');
    expect(history).toContain('assessment link sent to security@vendor.example');
  });
});
