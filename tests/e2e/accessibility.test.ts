import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext } from 'playwright';
import { createApp } from '../../src/app';
import { ALL_PERMISSIONS } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { auditPages } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, bearer, classificationId, makeToken, unique } from '../helpers/factories';

/**
 * axe-core (WCAG 2.1 A/AA and best practices, landmarks included) over the list, form and record page of every
 * register and the other lists, signed in as an administrator: no critical, serious or moderate violation (the Settings
 * pages: accessibility-settings.test.ts).
 */

if (!chromiumAvailable) console.warn('e2e/accessibility: skipped, /usr/bin/chromium is not installed (apt-get install -y chromium)');

let env: TestEnv;
let browser: Browser;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let context: BrowserContext;
const ids: Record<string, string> = {};

beforeAll(async () => {
  if (!chromiumAvailable) return;
  env = await testEnv();
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server?.port}`;
  const token = await makeToken(env, await adminActor(env), [...ALL_PERMISSIONS]);
  const create = async (path: string, body: unknown) => {
    const res = await env.request(`/api/v1${path}`, bearer(token, { method: 'POST', body: JSON.stringify(body) }));
    const answer = (await res.json()) as { data?: { id: string }; error?: string };
    if (res.status !== 201 || !answer.data) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer.data.id;
  };
  ids.risks = await create('/risks', { title: unique('Axe risk'), classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3 });
  ids.controls = await create('/controls', { name: unique('Axe control') });
  ids.assets = await create('/assets', { name: unique('Axe asset') });
  ids['business-units'] = await create('/business-units', { name: unique('Axe unit') });
  ids.policies = await create('/policies', { title: unique('Axe policy') });
  ids['third-parties'] = await create('/third-parties', { name: unique('Axe vendor') });
  ids.incidents = await create('/incidents', { title: unique('Axe incident') });
  ids.projects = await create('/projects', { title: unique('Axe project') });
  ids.audits = await create('/audits', { title: unique('Axe audit') });
  ids.evidence = await create('/evidence', { title: unique('Axe evidence') });
  ids['account-reviews'] = await create('/account-reviews', { name: unique('Axe review') });
  browser = await launchChromium();
  context = (await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).context();
}, 120_000);

afterAll(async () => {
  if (!chromiumAvailable) return;
  await browser?.close();
  await server?.stop();
});

const audit = (paths: string[]) => auditPages(context, base, paths);

const REGISTERS = ['risks', 'controls', 'assets', 'business-units', 'policies', 'third-parties', 'incidents', 'projects', 'audits', 'evidence', 'account-reviews'];

describe.skipIf(!chromiumAvailable)('accessibility (axe-core)', () => {
  for (const register of REGISTERS) {
    test(`${register}: list, form, record page, edit form and delete confirmation`, async () => {
      const id = ids[register];
      expect(await audit([`/${register}`, `/${register}/new`, `/${register}/${id}`, `/${register}/${id}/edit`, `/${register}/${id}/delete`])).toEqual({});
    }, 300_000);
  }

  test('the other lists and screens: exceptions, findings, packages, POA&M, treatments, search, start page', async () => {
    const paths = ['/risks/exceptions', '/policies/exceptions', '/audits/findings', '/compliance/packages', '/compliance/packages/import', '/compliance/poam',
      `/risks/${ids.risks}/treatments`, '/search?q=Axe', '/', '/no-such-page'];
    const found = await audit(paths);
    // The unknown address answers 404 inside the app: only its status is expected there.
    expect(found).toEqual({ '/no-such-page': ['answered 404'] });
  }, 600_000);
});
