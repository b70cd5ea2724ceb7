import { beforeAll, describe, expect, test } from 'bun:test';
import type { Level, Permission } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser } from '../helpers/factories';

let env: TestEnv;
let admin: Browser;

beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

async function viewer(rights: Partial<Record<Permission, Level>>): Promise<Browser> {
  const user = await makeUser(env, rights);
  return signedInBrowser(env, user.email, user.password);
}

/** The import dialogs the list at `path` links to, and whether they are offered in a menu. */
async function importLinks(browser: Browser, path: string) {
  const res = await browser.get(path);
  expect(res.status).toBe(200);
  const html = await res.text();
  return {
    links: [...html.matchAll(/href="([^"]*\/import)"/g)].map((m) => m[1]).filter((href, i, all) => all.indexOf(href) === i),
    menu: html.includes('class="menu import-menu"'),
    html,
  };
}

describe('The Import button offers the record types the viewer may import', () => {
  test('Risks: a menu of Risks and Risk exceptions for create + update; only the types the rights allow otherwise', async () => {
    expect(await importLinks(admin, '/risks')).toMatchObject({ links: ['/risks/import', '/risks/exceptions/import'], menu: true });
    expect(await importLinks(await viewer({ 'risks:read': 'all', 'risks:update': 'own' }), '/risks'))
      .toMatchObject({ links: ['/risks/import', '/risks/exceptions/import'], menu: true });
    expect(await importLinks(await viewer({ 'risks:read': 'all', 'risks:create': 'all' }), '/risks')).toMatchObject({ links: ['/risks/import'], menu: false });
    expect(await importLinks(await viewer({ 'risks:read': 'all' }), '/risks')).toMatchObject({ links: [], menu: false });
  });

  test('Policies: Policies and Policy exceptions', async () => {
    const page = await importLinks(admin, '/policies');
    expect(page).toMatchObject({ links: ['/policies/import', '/policies/exceptions/import'], menu: true });
    expect(page.html).toContain('>Policy exceptions</a>');
    expect(await importLinks(await viewer({ 'policies:read': 'all', 'policies:create': 'all' }), '/policies')).toMatchObject({ links: ['/policies/import'], menu: false });
  });

  test('Compliance: packages (their own dialog) and compliance exceptions; exceptions need update on compliance', async () => {
    const page = await importLinks(admin, '/compliance/packages');
    expect(page.menu).toBe(true);
    expect(page.links).toContain('/compliance/exceptions/import');
    expect(page.html).toContain('>Compliance packages</a>');
    expect(page.html).not.toContain('>Import package</a>'); // the menu offers it; no second button beside it
    const reader = await importLinks(await viewer({ 'compliance:read': 'all' }), '/compliance/packages');
    expect(reader).toMatchObject({ links: [], menu: false });
  });

  test('Audits: the plans page imports audit findings, for those who may create or update audits', async () => {
    const page = await importLinks(admin, '/audits');
    expect(page.links).toEqual(['/audits/findings/import']);
    expect(page.html).toContain('>Import audit findings</a>');
    expect(await importLinks(await viewer({ 'audits:read': 'all' }), '/audits')).toMatchObject({ links: [], menu: false });
    // The findings list keeps its own plain Import button.
    expect(await importLinks(admin, '/audits/findings')).toMatchObject({ links: ['/audits/findings/import'], menu: false });
  });

  test('the exceptions import dialog opens for update on the parent and is refused without it', async () => {
    expect((await admin.get('/risks/exceptions/import')).status).toBe(200);
    expect((await (await viewer({ 'risks:read': 'all', 'risks:create': 'all' })).get('/risks/exceptions/import')).status).toBe(403);
  });
});
