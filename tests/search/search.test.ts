import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, bearer, makeRisk, makeToken, makeUser } from '../helpers/factories';
import type { Actor } from '../../src/platform/permissions/permissions';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let token: string;
const marker = `zq${crypto.randomUUID().slice(0, 6)}`;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['risks:read', 'risks:create', 'controls:read', 'controls:create', 'compliance:read', 'compliance:create', 'evidence:read', 'evidence:create']);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
type Hit = { kind: string; id: string; title: string; snippet: string; rank: number; href: string };
const searchFor = async (q: string, secret = token, extra = '') => {
  const res = await send('GET', `/api/v1/search?q=${encodeURIComponent(q)}${extra}`, undefined, secret);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: Hit[] }).data;
};

describe('search', () => {
  test('finds words in titles and text across registers, title matches first, with a highlighted snippet', async () => {
    const inTitle = await makeRisk(env, admin, { title: `Ransomware ${marker} outage`, description: 'Backups are offline.' });
    const inText = await makeRisk(env, admin, { title: 'Unrelated title', description: `A ${marker} spreads through shares and encrypts the file servers.` });
    const control = (await (await send('POST', '/api/v1/controls', { name: `Immutable backups ${marker}` })).json() as { data: { id: string } }).data.id;
    const hits = await searchFor(marker);
    expect(hits.map((h) => h.id)).toEqual(expect.arrayContaining([inTitle, inText, control]));
    const ranks = new Map(hits.map((h) => [h.id, h.rank]));
    expect(ranks.get(inTitle)!).toBeGreaterThan(ranks.get(inText)!);
    expect(hits.find((h) => h.id === inText)).toMatchObject({ kind: 'risk', href: `/risks/${inText}` });
    expect(hits.find((h) => h.id === inText)!.snippet).toContain(`**${marker}**`);
    const onlyControls = await searchFor(marker, token, '&kinds=control');
    expect(onlyControls.map((h) => h.kind)).toEqual(['control']);
  });

  test('finds requirement codes such as AC-2 and short names by trigram and substring', async () => {
    const name = `Pkg ${marker}`;
    await send('POST', '/api/v1/compliance/packages', { name, items: [{ code: 'AC-2', name: 'Account Management' }, { code: 'AC-20', name: 'Use of External Systems' }] });
    const hits = await searchFor('AC-2');
    const requirements = hits.filter((h) => h.kind === 'requirement');
    expect(requirements.map((h) => h.title)).toEqual(expect.arrayContaining(['AC-2 Account Management']));
    expect(requirements[0].title).toBe('AC-2 Account Management');
  });

  test('only what the caller may read, filtered before the limit', async () => {
    const user = await makeUser(env, { 'risks:read': 'own', 'risks:create': 'own', 'apiTokens:create': 'own' });
    const own = await makeRisk(env, await user.actor(), { title: `Own ${marker} risk` });
    const userToken = await makeToken(env, await user.actor(), ['risks:read']);
    for (let i = 0; i < 3; i += 1) await makeRisk(env, admin, { title: `Hidden ${marker} risk ${i}` });
    const hits = await searchFor(marker, userToken, '&limit=1');
    expect(hits.map((h) => h.id)).toEqual([own]);
    const res = await send('GET', `/api/v1/search?q=${marker}`, undefined, await makeToken(env, await user.actor(), ['risks:read']));
    expect(((await res.json()) as { data: Hit[] }).data.every((h) => h.kind === 'risk')).toBe(true);
  });

  test('a blank or overlong query is refused 400; a token without any read scope 403', async () => {
    expect((await send('GET', '/api/v1/search?q=')).status).toBe(400);
    expect((await send('GET', `/api/v1/search?q=${'x'.repeat(201)}`)).status).toBe(400);
    const noRead = await makeToken(env, admin, ['risks:create']);
    expect(await refusalOf(env, async () => send('GET', '/api/v1/search?q=risk', undefined, noRead))).toEqual(refusedWith(403, 'forbidden', 'risks:read or controls:read or compliance:read or evidence:read or policies:read or assets:read or businessUnits:read or thirdParties:read or incidents:read or audits:read or projects:read or dataPrivacy:read missing (token scope and creator\'s right)'));
  });

  test('any text answers a result or a 400, never a 500: runs of NOT operators (33 or more "-") are read as one', async () => {
    const titled = await makeRisk(env, admin, { title: `Dash ${marker} guard` });
    // Each separator that websearch_to_tsquery skips between dashes, 33 times and up to the 200-character limit.
    const runs = ['-', '- ', '-(', '-<', '-&', '-|', '-!', '-"', '-.'].flatMap((unit) => [unit.repeat(33), unit.repeat(200).slice(0, 200)]);
    for (const q of [...runs, `${'-'.repeat(40)} ${marker}`, `${marker} ${'- '.repeat(60)}`]) {
      const res = await send('GET', `/api/v1/search?q=${encodeURIComponent(q)}`);
      const body = await res.text();
      expect(res.status, `${JSON.stringify(q)}: ${body}`).toBe(200);
      expect(body).not.toMatch(/tsquery|select /i);
    }
    expect((await searchFor(`${marker} ${'- '.repeat(60)}`)).map((h) => h.id)).toContain(titled);
    // A single NOT still excludes: "-word" keeps its meaning.
    expect((await searchFor(`${marker} -guard`)).map((h) => h.id)).not.toContain(titled);
  });

  test('the screens: a search box in the header and results grouped by kind, matches marked, names escaped', async () => {
    await makeRisk(env, admin, { title: `<b>Phishing</b> ${marker}`, description: `Credential ${marker} phishing campaign` });
    const browser = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const home = await (await browser.get('/risks')).text();
    expect(home).toContain('action="/search"');
    const page = await (await browser.get(`/search?q=${marker}`)).text();
    expect(page).toMatch(/<h2>Risks \(\d+\)<\/h2>/);
    expect(page).toContain('&lt;b&gt;Phishing&lt;/b&gt;');
    expect(page).toContain(`<mark>${marker}</mark>`);
    const nothing = await (await browser.get('/search?q=nosuchwordanywhere')).text();
    expect(nothing).toContain('Nothing you may read matches');
  });
});
