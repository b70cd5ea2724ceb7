import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { signedInBrowser } from '../helpers/browser';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { assessmentClient, openPage, pathOf, pdf, postForm, VENDOR_ANSWERS } from './helpers';

let env: TestEnv;
let api: ReturnType<typeof assessmentClient>;
beforeAll(async () => {
  env = await testEnv();
  api = assessmentClient(env, await makeToken(env, await adminActor(env), ['assessments:read', 'assessments:create', 'thirdParties:read', 'thirdParties:create']));
});

describe('assessment screens', () => {
  test('a questionnaire is sent from the form (the link shown once), its problems told with the form kept', async () => {
    const person = await makeUser(env, { 'assessments:read': 'own', 'assessments:create': 'own', 'assessments:update': 'own', 'thirdParties:read': 'all' });
    const b = await signedInBrowser(env, person.email, person.password);
    const form = await b.get('/assessments/requests/new');
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toContain('Vendor security questionnaire');
    const templateId = await api.shipped('dpia-screening');
    const refused = await b.post('/assessments/requests', { templateId, thirdPartyId: '', respondentName: 'Sam', respondentEmail: 'not an address', dueOn: '2099-01-01' });
    expect(refused.status).toBe(400);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain('Nothing was sent');
    expect(refusedHtml).toContain('must be one e-mail address');
    expect(refusedHtml).toContain('value="Sam"');
    const sent = await b.post('/assessments/requests', { templateId, thirdPartyId: '', respondentName: 'Sam', respondentEmail: 'sam@inside.example', dueOn: '2099-01-01' });
    expect(sent.status, await sent.clone().text()).toBe(201);
    const sentHtml = await sent.text();
    const url = /class="secret">([^<]+)</.exec(sentHtml)?.[1];
    expect(url).toMatch(/\/assess\/[A-Za-z0-9_-]{43}$/);
    expect((await env.request(pathOf(url!))).status).toBe(200);
    const list = await (await b.get('/assessments/requests')).text();
    expect(list).toContain('sam@inside.example');
    expect(list).toContain('Internal');
  });

  test('the reviewer sees weights and scores beside each answer, saves scores and comments, accepts', async () => {
    const sent = await api.sendRequest({ templateId: await api.shipped('vendor-security'), thirdPartyId: await api.thirdParty() });
    const page = await openPage(env, pathOf(sent.url));
    expect((await postForm(env, pathOf(sent.url), page, VENDOR_ANSWERS(pdf()), 'submit')).status).toBe(303);
    const reviewer = await makeUser(env, { 'assessments:read': 'all', 'assessments:update': 'all', 'thirdParties:read': 'all' });
    const b = await signedInBrowser(env, reviewer.email, reviewer.password);
    const res = await b.get(`/assessments/requests/${sent.id}`);
    const html = await res.text();
    expect(res.status, html).toBe(200);
    expect(html).toContain('Template: 30%');
    expect(html).toContain('iso27001.pdf');
    const keyIndex = /name="key\.(\d+)" value="restoreTested"/.exec(html)![1];
    const fields: Record<string, string> = {};
    for (const m of html.matchAll(/name="(key\.\d+)" value="([^"]+)"/g)) fields[m[1]] = m[2];
    const reviewed = await b.post(`/assessments/requests/${sent.id}/review`, { ...fields, [`score.${keyIndex}`]: '100', [`comment.${keyIndex}`]: 'Fine' });
    expect(reviewed.status).toBe(303);
    const after = await (await b.get(`/assessments/requests/${sent.id}?done=reviewed`)).text();
    expect(after).toContain('Scores and comments saved.');
    expect(after).toContain('>Fine</textarea>');
    // History on the page: the submission (the respondent has no account) and the review, with status labels.
    expect(after).toContain('id="request-history"');
    expect(after).toContain('<span>Sent</span> → <span>Submitted</span>');
    expect(after).toContain('<span>Review</span>');
    const file = await b.get(`/assessments/requests/${sent.id}/files/${/files\/([0-9a-f-]{36})/.exec(html)![1]}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain('iso27001.pdf');
    expect((await b.post(`/assessments/requests/${sent.id}/accept`, {})).status).toBe(303);
    const again = await b.post(`/assessments/requests/${sent.id}/accept`, {});
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('Only a submitted questionnaire can be accepted');
  });

  test('a reviewer who may create risks makes one from an answer on the page; one who may not is refused 403, audited, and is not offered the form', async () => {
    const sent = await api.sendRequest({ templateId: await api.shipped('vendor-security') });
    const page = await openPage(env, pathOf(sent.url));
    expect((await postForm(env, pathOf(sent.url), page, VENDOR_ANSWERS(pdf()), 'submit')).status).toBe(303);
    const withRisks = await makeUser(env, { 'assessments:read': 'all', 'assessments:update': 'all', 'risks:read': 'all', 'risks:create': 'all' });
    const b = await signedInBrowser(env, withRisks.email, withRisks.password);
    const html = await (await b.get(`/assessments/requests/${sent.id}`)).text();
    expect(html).toContain('Create a risk');
    expect(html).not.toContain('Create an audit finding');
    const classification = /name="risk-classification"[^>]*>\s*<option value="([^"]+)"/.exec(html)![1];
    const created = await b.post(`/assessments/requests/${sent.id}/risks`, { 'risk-key': 'dataLocation', 'risk-title': 'Data outside the EEA', 'risk-classification': classification, 'risk-likelihood': '2', 'risk-impact': '3' });
    expect(created.status, await created.clone().text()).toBe(303);
    expect(created.headers.get('location')).toMatch(/^\/risks\/[0-9a-f-]{36}$/);

    const without = await makeUser(env, { 'assessments:read': 'all', 'assessments:update': 'all' });
    const c = await signedInBrowser(env, without.email, without.password);
    expect(await (await c.get(`/assessments/requests/${sent.id}`)).text()).not.toContain('Create a risk');
    expect(await refusalOf(env, () => c.post(`/assessments/requests/${sent.id}/risks`, { 'risk-key': 'dataLocation', 'risk-title': 'x', 'risk-classification': classification, 'risk-likelihood': '2', 'risk-impact': '3' })))
      .toEqual(refusedWith(403, undefined, 'user right risks:create missing'));
  });
});

describe('the questionnaires list: the one filter bar, headers that sort, Export of what is shown', () => {
  test('Owner narrows it, a header sorts it (the sort in the address), and Export writes what is shown in its words', async () => {
    const person = await makeUser(env, { 'assessments:read': 'own', 'assessments:create': 'own', 'thirdParties:read': 'all', 'apiTokens:create': 'own' });
    const theirs = assessmentClient(env, await makeToken(env, await person.actor('api'), ['assessments:read', 'assessments:create']));
    const templateId = await api.shipped('dpia-screening');
    const soon = await theirs.sendRequest({ templateId, dueOn: '2098-01-01' });
    const later = await theirs.sendRequest({ templateId, dueOn: '2099-06-01' });
    const ids = async (query: string) =>
      (await api.data<{ rows: { id: string }[] }>(await api.send('GET', `/api/v1/assessments/requests?ownerId=${person.id}${query}`))).rows.map((r) => r.id);
    expect(await ids('&sort=dueOn')).toEqual([soon.id, later.id]);
    expect(await ids('&sort=-dueOn')).toEqual([later.id, soon.id]);

    const b = await signedInBrowser(env, person.email, person.password);
    const html = await (await b.get(`/assessments/requests?ownerId=${person.id}&sort=-dueOn`)).text();
    for (const label of ['Search titles', 'Status', 'Owner']) expect(html).toContain(`>${label}</label>`);
    expect(html).toContain('2 questionnaires match these filters');
    expect(html).toContain('aria-sort="descending"');
    expect(html).toContain(`href="/assessments/requests?ownerId=${person.id}&sort=dueOn"`);
    expect(html).toContain(`href="/assessments/requests.csv?ownerId=${person.id}&sort=-dueOn"`);
    const csv = await b.get(`/assessments/requests.csv?ownerId=${person.id}&sort=-dueOn`);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="questionnaires-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await csv.text()).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(lines[0]).toBe('Questionnaire,Third party,Sent to,Due,Status,Score');
    expect(lines.slice(1).map((l) => l.split(',')[3])).toEqual(['2099-06-01', '2098-01-01']);
    expect(lines[1]).toContain(',Internal,security@vendor.example,2099-06-01,');
  });
});

describe('the templates list: the one filter bar, headers that sort, Export of what is shown', () => {
  test('words narrow the API list and the screen (the API took q and ignored it), a header sorts, Export writes what is shown', async () => {
    const titles = async (query: string) =>
      (await api.data<{ rows: { title: string }[] }>(await api.send('GET', `/api/v1/assessments/templates?pageSize=200${query}`))).rows.map((r) => r.title);
    const all = await titles('');
    expect(all.length).toBeGreaterThan(1);
    const found = await titles('&q=vendor%20security');
    expect(found).toEqual(all.filter((t) => t.toLowerCase().includes('vendor security')));
    expect(found.length).toBeGreaterThan(0);
    expect(await titles('&sort=-title')).toEqual([...all].sort((a, b) => b.localeCompare(a)));

    const person = await makeUser(env, { 'assessments:read': 'all' });
    const b = await signedInBrowser(env, person.email, person.password);
    const html = await (await b.get('/assessments/templates?q=vendor%20security&sort=-title')).text();
    for (const label of ['Search titles', 'Owner']) expect(html).toContain(`>${label}</label>`);
    expect(html).toContain(`${found.length} template${found.length === 1 ? ' matches' : 's match'} these filters`);
    expect(html).toContain('href="/assessments/templates?q=vendor+security&sort=title"');
    expect(html).toContain('href="/assessments/templates.csv?q=vendor+security&sort=-title"');
    const lines = (await (await b.get('/assessments/templates.csv?q=vendor+security')).text()).replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(lines[0]).toBe('Template,Questions,Version,Shipped with the service,Changed');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(found);
    expect(lines[1]).toMatch(/,\d+,\d+,Yes,\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  });
});
