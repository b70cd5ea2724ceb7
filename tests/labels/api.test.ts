import { beforeAll, describe, expect, test } from 'bun:test';
import { sessionCookieName } from '../../src/platform/http/screen-auth';
import { signIn } from '../../src/platform/http/sessions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['settings:read', 'settings:create', 'settings:update']);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;

interface Label { id: string; name: string; color: string; description: string }

describe('labels over REST', () => {
  test('a label gets the default colour when none is given, and is listed by name', async () => {
    const name = unique('Label');
    const res = await send('POST', '/api/v1/labels', { name });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = await json<{ id: string }>(res);
    expect(await json<Label>(await send('GET', `/api/v1/labels/${id}`))).toMatchObject({ name, color: '#888888', description: '' });
    const page = await json<{ rows: Label[]; total: number }>(await send('GET', `/api/v1/labels?q=${encodeURIComponent(name)}`));
    expect(page.rows.map((l) => l.id)).toEqual([id]);
  });

  test('a name already taken, ignoring case, is a conflict; a colour that is not #rrggbb is refused naming the field', async () => {
    const name = unique('PCI');
    expect((await send('POST', '/api/v1/labels', { name, color: '#AA0000' })).status).toBe(201);
    const clash = await send('POST', '/api/v1/labels', { name: name.toLowerCase() });
    expect(clash.status).toBe(409);
    const badColor = await send('POST', '/api/v1/labels', { name: unique('Red'), color: 'red' });
    expect(badColor.status).toBe(400);
    expect(((await badColor.json()) as { error: string }).error).toContain('color');
  });

  test('reading needs settings:read, adding settings:create, changing settings:update', async () => {
    const reader = await makeToken(env, await adminActor(env), ['settings:read']);
    expect((await send('GET', '/api/v1/labels', undefined, reader)).status).toBe(200);
    expect((await send('POST', '/api/v1/labels', { name: unique('Nope') }, reader)).status).toBe(403);
    const { id } = await json<{ id: string }>(await send('POST', '/api/v1/labels', { name: unique('Keep') }));
    expect((await send('PATCH', `/api/v1/labels/${id}`, { color: '#000000' }, reader)).status).toBe(403);
    expect((await send('DELETE', `/api/v1/labels/${id}`, undefined, reader)).status).toBe(403);
    const user = await makeUser(env, { 'risks:read': 'all', 'apiTokens:create': 'own' });
    const noSettings = await makeToken(env, await user.actor(), ['risks:read']);
    expect((await send('GET', '/api/v1/labels', undefined, noSettings)).status).toBe(403);
  });

  test('renaming, recolouring and deleting are in the History', async () => {
    const { id } = await json<{ id: string }>(await send('POST', '/api/v1/labels', { name: unique('Temp') }));
    const patched = await send('PATCH', `/api/v1/labels/${id}`, { color: '#123456' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    expect((await json<Label>(patched)).color).toBe('#123456');
    const history = await json<{ action: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/labels/${id}/history`));
    expect(history[0]).toMatchObject({ action: 'update', changes: { color: { before: '#888888', after: '#123456' } } });
    expect((await send('DELETE', `/api/v1/labels/${id}`)).status).toBe(204);
    expect((await send('GET', `/api/v1/labels/${id}`)).status).toBe(404);
  });
});

describe('Settings › Labels screen', () => {
  const browser = async (email: string, password: string) => {
    const session = await signIn(env.ctx.db, email, password, '', { sessionHours: 1 });
    const cookie = `${sessionCookieName(env.ctx.config)}=${session.secret}`;
    return {
      get: (path: string) => env.request(path, { headers: { cookie } }),
      post: (path: string, fields: Record<string, string>) => env.request(path, {
        method: 'POST', redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: session.csrfToken, ...fields }).toString(),
      }),
    };
  };

  test('an administrator adds, renames and deletes a label on the screen', async () => {
    const admin = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    const name = unique('Screen label');
    const added = await admin.post('/settings/labels', { name, color: '#00ff00', description: 'added on screen' });
    expect(added.status, await added.clone().text()).toBe(303);
    const page = await (await admin.get('/settings/labels')).text();
    expect(page).toContain(name);
    const [label] = (await json<{ rows: Label[] }>(await send('GET', `/api/v1/labels?q=${encodeURIComponent(name)}`))).rows;
    expect(label.color).toBe('#00ff00');
    expect((await admin.post(`/settings/labels/${label.id}`, { name: `${name} renamed`, color: '#00ff00', description: '' })).status).toBe(303);
    expect((await json<Label>(await send('GET', `/api/v1/labels/${label.id}`))).name).toBe(`${name} renamed`);
    expect((await admin.post(`/settings/labels/${label.id}/delete`, {})).status).toBe(303);
    expect((await send('GET', `/api/v1/labels/${label.id}`)).status).toBe(404);
  });

  test('a duplicate name is shown inline on the form, and the user text is escaped', async () => {
    const admin = await browser(ADMIN_EMAIL, ADMIN_PASSWORD);
    const name = `${unique('Dup')}<script>`;
    expect((await admin.post('/settings/labels', { name, color: '#000000' })).status).toBe(303);
    const refused = await admin.post('/settings/labels', { name, color: '#000000' });
    expect(refused.status).toBe(409);
    const html = await refused.text();
    expect(html).toContain('&lt;script&gt;&quot; already exists');
    // Outside quoted attribute values (where "<" is inert), the name never appears as markup.
    expect(html.replace(/="[^"]*"/g, '=""')).not.toContain('<script>');
  });

  test('a reader without Settings rights cannot open it; one with settings:read sees no edit controls', async () => {
    const outsider = await makeUser(env, { 'risks:read': 'all' });
    expect((await (await browser(outsider.email, outsider.password)).get('/settings/labels')).status).toBe(403);
    const reader = await makeUser(env, { 'settings:read': 'all' });
    const res = await (await browser(reader.email, reader.password)).get('/settings/labels');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain('Add a label');
    expect(html).not.toContain('/delete');
  });
});
