import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const idFrom = (location: string | null) => /\/third-parties\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';
const createParty = async (form: Record<string, string>) => {
  const res = await admin.post('/third-parties', form);
  expect(res.status, await res.clone().text()).toBe(303);
  return idFrom(res.headers.get('location'));
};

describe('third party screens', () => {
  test('a third party created on the form shows on its page and in the list', async () => {
    const name = unique('Payroll Provider');
    const id = await createParty({ name, website: 'https://payroll.example' });
    const page = await (await admin.get(`/third-parties/${id}`)).text();
    expect(page).toContain(name);
    expect(page).toContain('https://payroll.example');
    expect(page).toContain('Vendor');
    expect(await (await admin.get(`/third-parties?q=${encodeURIComponent(name)}`)).text()).toContain(`/third-parties/${id}`);
  });

  test('a website that is not an http(s) address is refused inline', async () => {
    const res = await admin.post('/third-parties', { name: 'Kept name', website: 'ftp://files.example' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Kept name');
    expect(html).toMatch(/id="f-website-error"[^>]*>[^<]*http/);
  });

  test('contacts are added, refused inline with a bad email, edited and removed from the page', async () => {
    const id = await createParty({ name: unique('Contacts Co') });
    const refused = await admin.post(`/third-parties/${id}/contacts`, { name: 'Ann Example', email: 'not-an-email' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/id="f-email-error"[^>]*>[^<]*email address/);
    const added = await admin.post(`/third-parties/${id}/contacts`, { name: 'Ann Example', email: 'ann@contacts.example', role: 'DPO' });
    expect(added.status, await added.clone().text()).toBe(303);
    const page = await (await admin.get(`/third-parties/${id}`)).text();
    expect(page).toContain('ann@contacts.example');
    const contactId = /contacts\/([0-9a-f-]{36})\/edit/.exec(page)?.[1] ?? '';
    expect((await admin.get(`/third-parties/${id}/contacts/${contactId}/edit`)).status).toBe(200);
    expect((await admin.post(`/third-parties/${id}/contacts/${contactId}`, { name: 'Ann Example', email: '', role: 'Privacy lead' })).status).toBe(303);
    const edited = await (await admin.get(`/third-parties/${id}`)).text();
    expect(edited).toContain('Privacy lead');
    expect(edited).not.toContain('ann@contacts.example</a>');
    expect((await admin.post(`/third-parties/${id}/contacts/${contactId}/delete`, {})).status).toBe(303);
    expect(await (await admin.get(`/third-parties/${id}`)).text()).toContain('No contacts yet.');
  });

  test('risks and sub-processors are linked and unlinked from the page, each in the History', async () => {
    const id = await createParty({ name: unique('Linking Ltd') });
    const subName = unique('Sub Ltd');
    const sub = await createParty({ name: subName });
    const riskTitle = unique('Data leak at vendor');
    const riskId = await makeRisk(env, await adminActor(env), { title: riskTitle });
    expect((await admin.post(`/third-parties/${id}/risks`, { riskId })).status).toBe(303);
    expect((await admin.post(`/third-parties/${id}/sub-processors`, { thirdPartyId: sub })).status).toBe(303);
    const page = await (await admin.get(`/third-parties/${id}`)).text();
    expect(page).toContain(`href="/risks/${riskId}"`);
    expect(page).toContain(`href="/third-parties/${sub}"`);
    expect(page).toContain('<span>Risk linked</span>');
    expect(page).toContain('<span>Sub processor added</span>');
    // The reverse link would make a cycle: refused with the reason.
    const cycle = await admin.post(`/third-parties/${sub}/sub-processors`, { thirdPartyId: id });
    expect(cycle.status).toBe(400);
    expect(await cycle.text()).toContain('cycle');
    expect((await admin.post(`/third-parties/${id}/risks/${riskId}/delete`, {})).status).toBe(303);
    expect((await admin.post(`/third-parties/${id}/sub-processors/${sub}/delete`, {})).status).toBe(303);
    const after = await (await admin.get(`/third-parties/${id}`)).text();
    // Gone from the page's links; its History still names (and links) the risk that was unlinked.
    const [sections, history] = after.split('id="record-history"');
    expect(sections).not.toContain(`href="/risks/${riskId}"`);
    expect(history).toContain(`href="/risks/${riskId}"`);
    expect(after).toContain('No sub-processors.');
  });

  test('a reader sees no change controls, and linked risks only with risks:read', async () => {
    const id = await createParty({ name: unique('Read Only Vendor') });
    const reader = await makeUser(env, { 'thirdParties:read': 'all' });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/third-parties' })).status).toBe(303);
    const page = await (await b.get(`/third-parties/${id}`)).text();
    expect(page).not.toContain('Add contact');
    expect(page).toContain('Linked risks are shown to people who may read risks.');
    expect(await refusalOf(env, async () => b.get(`/third-parties/${id}/contacts/new`))).toEqual(refusedWith(403, undefined, 'user right thirdParties:update missing'));
  });
});
