import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken } from '../helpers/factories';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { assessmentClient } from './helpers';

/**
 * A third party's page lists the questionnaires sent to it with their count, an Export CSV of them and a link to the
 * Questionnaires list filtered to that third party, where the one filter bar, sorting headers and Export apply.
 */

let env: TestEnv;
let api: ReturnType<typeof assessmentClient>;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  api = assessmentClient(env, await makeToken(env, await adminActor(env), ['assessments:read', 'assessments:create', 'thirdParties:read', 'thirdParties:create']));
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

describe("a third party's questionnaires as a list", () => {
  test('counted on its page, exported, and filtered to it in Questionnaires', async () => {
    const template = await api.shipped('vendor-security');
    const vendor = await api.thirdParty();
    const other = await api.thirdParty();
    await api.sendRequest({ templateId: template, thirdPartyId: vendor, respondentEmail: 'first@vendor.example' });
    await api.sendRequest({ templateId: template, thirdPartyId: vendor, respondentEmail: 'second@vendor.example' });
    await api.sendRequest({ templateId: template, thirdPartyId: other, respondentEmail: 'elsewhere@other.example' });

    const page = await (await admin.get(`/third-parties/${vendor}`)).text();
    expect(page).toContain('2 questionnaires.');
    expect(page).toContain(`href="/assessments/requests?thirdPartyId=${vendor}"`);
    expect(page).toContain(`href="/assessments/requests.csv?thirdPartyId=${vendor}"`);

    const list = await (await admin.get(`/assessments/requests?thirdPartyId=${vendor}&sort=-createdAt`)).text();
    expect(list).toContain('<label for="filter-thirdPartyId">Third party</label>');
    expect(list).toMatch(new RegExp(`<option value="${vendor}" selected>`));
    expect(list).toContain('2 questionnaires match these filters');
    expect(list).not.toContain('elsewhere@other.example');
    expect(list.indexOf('second@vendor.example')).toBeLessThan(list.indexOf('first@vendor.example'));
    expect(list).toContain(`href="/assessments/requests.csv?thirdPartyId=${vendor}&sort=-createdAt"`);

    const csv = await (await admin.get(`/assessments/requests.csv?thirdPartyId=${vendor}`)).text();
    expect(csv).toContain('first@vendor.example');
    expect(csv).toContain('second@vendor.example');
    expect(csv).not.toContain('elsewhere@other.example');
  });
});
