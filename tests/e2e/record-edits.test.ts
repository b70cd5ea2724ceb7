import { describe, expect, test } from 'bun:test';
import { assetKind } from '../../src/modules/assets/service';
import { controlKind } from '../../src/modules/controls/service';
import { riskParent } from '../../src/modules/exceptions/parents';
import { createException, getException } from '../../src/modules/exceptions/service';
import { createTreatment, getTreatment } from '../../src/modules/risks/treatments-service';
import { createRecord } from '../../src/platform/records/records';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { useBrowserApp } from '../helpers/browser-app';
import { chromiumAvailable, openPage } from '../helpers/chromium';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';

/** A treatment and an exception edited on their own pages, and a CSV check showing old → new, in Chromium. */

const app = useBrowserApp('record-edits');

describe.skipIf(!chromiumAvailable)('editing on a record\'s own page in the browser', () => {
  test('a treatment: from the risk\'s treatments to its page, a refused edit keeps what was typed, a good one shows in its History', async () => {
    const admin = await adminActor(app.env);
    const riskId = await makeRisk(app.env, admin, { title: unique('Lost laptop') });
    const controlName = unique('Disk encryption');
    await app.env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name: controlName }));
    const title = unique('Encrypt laptops');
    const { id } = await app.env.ctx.db.transaction((tx) => createTreatment(tx, admin, riskId, { type: 'mitigate', title, description: '', controlIds: [] }));
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });

    await page.goto(`${app.base}/risks/${riskId}/treatments`);
    await page.locator('#risk-treatments').getByRole('link', { name: title }).click();
    await page.waitForURL(`**/risks/${riskId}/treatments/${id}`);
    expect(await axeViolations(page)).toEqual([]);

    // With more controls than the picker lists (other tests' controls share this database), the page offers a search.
    const find = page.getByRole('search', { name: 'Find controls for the treatment' });
    if (await find.count()) {
      await find.getByLabel('Find controls').fill(controlName);
      await find.getByRole('button', { name: 'Find' }).click();
      await page.waitForURL((url) => url.searchParams.get('controls') === controlName);
    }
    const form = page.locator('#edit-treatment');
    await form.getByLabel('Type').selectOption('accept');
    await form.getByLabel('Controls (mitigate)').selectOption({ label: controlName });
    await form.getByLabel('Title').fill('Typed, then refused');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#edit-treatment .error', { hasText: 'only a mitigate treatment links controls' }).waitFor();
    expect(await page.locator('#edit-treatment').getByLabel('Title').inputValue()).toBe('Typed, then refused');
    expect(await axeViolations(page)).toEqual([]);

    await page.locator('#edit-treatment').getByLabel('Type').selectOption('mitigate');
    await page.locator('#edit-treatment').getByLabel('Title').fill(`${title} (all)`);
    await page.locator('#edit-treatment').getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL((url) => url.searchParams.get('done') === 'updated');
    const history = await page.locator('#treatment-history').innerText();
    expect(history).toContain(`${title} (all)`);
    expect(history).toContain(controlName);
    expect(await getTreatment(app.env.ctx.db, admin, riskId, id)).toMatchObject({ title: `${title} (all)`, controls: [{ name: controlName }] });
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'treatment-page');

    // The risk's History names the treatment and links to its page.
    await page.goto(`${app.base}/risks/${riskId}`);
    await page.locator('#record-history').getByRole('link', { name: `${title} (all)` }).first().click();
    await page.waitForURL(`**/risks/${riskId}/treatments/${id}`);
    expect(await axeViolations(page)).toEqual([]);
  }, 300_000);

  test('an exception: from the register to its page, edited, its History shows the new expiry', async () => {
    const admin = await adminActor(app.env);
    const riskTitle = unique('Unpatched firewall');
    const riskId = await makeRisk(app.env, admin, { title: riskTitle });
    const title = unique('Old firewall');
    const { id } = await app.env.ctx.db.transaction((tx) =>
      createException(tx, riskParent, admin, { parentId: riskId, title, description: 'Vendor end of life', expiresAt: '2099-01-01' }));
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });

    await page.goto(`${app.base}/risks/exceptions?pageSize=200`);
    await page.locator('#exceptions').getByRole('link', { name: title }).click();
    await page.waitForURL(`**/risks/exceptions/${id}`);
    expect(await axeViolations(page)).toEqual([]);

    const form = page.locator('#edit-exception');
    await form.getByLabel('Description').fill('');
    await form.getByLabel('Description').evaluate((el) => el.removeAttribute('required'));
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#edit-exception .error').first().waitFor();
    expect(await page.locator('#edit-exception').getByLabel('Title').inputValue()).toBe(title);
    expect(await axeViolations(page)).toEqual([]);

    await page.locator('#edit-exception').getByLabel('Description').fill('Replaced in March');
    await page.locator('#edit-exception').getByLabel('Expires on').fill('2099-03-31');
    await page.locator('#edit-exception').getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL((url) => url.searchParams.get('done') === 'updated');
    expect(await page.locator('#exception-history').innerText()).toContain('2099-03-31');
    expect(await getException(app.env.ctx.db, riskParent, admin, id)).toMatchObject({ expiresAt: '2099-03-31', description: 'Replaced in March' });
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'exception-page');

    // Its History says what it is an exception to in words, and links to the risk.
    const created = page.locator('#exception-history tr', { hasText: 'Created' });
    expect(await created.innerText()).toContain('Parent type: — → Risk');
    await created.getByRole('link', { name: riskTitle }).click();
    await page.waitForURL(`**/risks/${riskId}`);
    expect(await page.locator('h1').innerText()).toBe(riskTitle);
  }, 300_000);

  test('a CSV check shows old → new by label and name, and the imported rows link to their records', async () => {
    const admin = await adminActor(app.env);
    const [before, after] = [unique('Laptop fleet'), unique('Mail server')];
    const beforeId = (await app.env.ctx.db.transaction((tx) => createRecord(tx, assetKind, admin, { name: before }))).id as string;
    await app.env.ctx.db.transaction((tx) => createRecord(tx, assetKind, admin, { name: after }));
    const title = unique('Stolen laptop');
    const riskId = await makeRisk(app.env, admin, { title, assetId: beforeId });
    const newOwner = await makeUser(app.env, { 'risks:read': 'own' }, unique('Dana Owner'));
    const page = await openPage(app.browser, app.base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });

    await page.goto(`${app.base}/risks/import`);
    await page.getByLabel('CSV file').setInputFiles({
      name: 'risks.csv', mimeType: 'text/csv',
      buffer: Buffer.from(`id,title,classification,inherent_likelihood,inherent_impact,asset,owner,status\n${riskId},${title},Operational,3,4,${after},${newOwner.email},closed\n`),
    });
    await page.getByRole('button', { name: 'Check file' }).click();
    const result = page.locator('#import-result');
    await result.locator('h2', { hasText: 'Check result' }).waitFor();
    const row = await result.locator('tr.o-update').innerText();
    expect(row).toContain(`Asset: ${before} → ${after}`);
    // People by name (the file has the e-mail), stored keys by their labels.
    expect(row).toContain(`Owner: Administrator → ${newOwner.email.split('@')[0]}`);
    expect(row).toContain('Status: Open → Closed');
    expect(row).not.toContain(newOwner.email);
    expect(await axeViolations(page)).toEqual([]);

    await result.getByRole('button', { name: /Import rows/ }).click();
    await result.locator('h2', { hasText: 'Imported' }).waitFor();
    await result.getByRole('link', { name: title }).click();
    await page.waitForURL(`**/risks/${riskId}`);
    expect(await page.locator('h1').innerText()).toBe(title);
  }, 300_000);
});
