import { beforeAll, describe, expect, test } from 'bun:test';
import { and, asc, eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import type { Permission } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from './app';
import { browser, signedInBrowser, type Browser } from './browser';
import { adminActor, bearer, makeToken, makeUser, unique } from './factories';
import { refusalOf, refusedWith } from './refusals';

/**
 * What every name + description list (src/platform/name-lists) promises, checked through its REST API and its
 * Settings screen. Each module's test file runs it for its own list (tests/incidents, tests/risks).
 */
export interface NameListUnderTest {
  /** '/api/v1/risk-classifications'. */
  api: string;
  /** The Settings screen and its section: '/settings/risks', 'classifications'. */
  screen: string;
  anchor: string;
  /** As messages spell it: 'A risk classification', 'Risk classification'. */
  aLabel: string;
  label: string;
  recordType: string;
  /** The register's read scope, which reads the list over REST. */
  readScope: Permission;
  /** The rights that create and delete the register's records pointing at an entry (given to the test's token). */
  recordScopes: Permission[];
  countField: string;
  /** "1 incident", "2 incidents". */
  used: (n: number) => string;
  /** Makes a record of the register pointing at the entry, over REST with `token`; answers its address for deleting it. */
  useEntry: (env: TestEnv, token: string, id: string) => Promise<string>;
}

const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });
const long = (length: number) => unique('Long').padEnd(length, 'x');

export function nameListBehaviour(list: NameListUnderTest): void {
  let env: TestEnv;
  let token: string;
  let admin: Browser;

  beforeAll(async () => {
    env = await testEnv();
    token = await makeToken(env, await adminActor(env), [list.readScope, ...list.recordScopes, 'settings:create', 'settings:update']);
    admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  });

  const send = (method: string, path: string, body?: unknown, secret = token) =>
    env.request(path, bearer(secret, body === undefined ? { method } : json(method, body)));
  const data = async <T>(res: Response, status: number): Promise<T> => {
    expect(res.status, await res.clone().text()).toBe(status);
    return ((await res.json()) as { data: T }).data;
  };
  const create = async (name: string, description?: string) =>
    (await data<{ id: string }>(await send('POST', list.api, description === undefined ? { name } : { name, description }), 201)).id;
  const problemsOf = async (res: Response) => ((await res.json()) as { problems?: { field: string }[] }).problems?.map((p) => p.field);
  const auditOf = (id: string) => env.ctx.db.select({ module: auditLog.module, action: auditLog.action }).from(auditLog)
    .where(and(eq(auditLog.recordType, list.recordType), eq(auditLog.recordId, id))).orderBy(asc(auditLog.seq));
  /** Where a redirect leads, as a browser asks for it (without the fragment). */
  const followed = (res: Response) => admin.get(res.headers.get('location')!.split('#')[0]);
  const html = async (res: Response, status: number) => {
    const text = await res.text();
    expect(res.status, text.slice(0, 500)).toBe(status);
    return text;
  };

  describe(`${list.label}s over REST (the name list kit)`, () => {
    test('a name of 200 characters is kept; 201 characters, a blank name or an unknown field is refused on that field', async () => {
      const longest = long(200);
      const id = await create(longest, 'The longest name the list takes');
      expect(await data<{ name: string }>(await send('GET', `${list.api}/${id}`), 200)).toMatchObject({ name: longest, [list.countField]: 0 });

      const tooLong = await send('POST', list.api, { name: long(201) });
      expect(tooLong.status).toBe(400);
      expect(await problemsOf(tooLong)).toEqual(['name']);
      const blank = await send('POST', list.api, { name: '  ' });
      expect(blank.status).toBe(400);
      expect(await problemsOf(blank)).toEqual(['name']);
      const renamedTooLong = await send('PATCH', `${list.api}/${id}`, { name: long(201) });
      expect(renamedTooLong.status).toBe(400);
      expect(await problemsOf(renamedTooLong)).toEqual(['name']);
      expect((await send('POST', list.api, { name: unique('Extra'), colour: '#ffffff' })).status).toBe(400);
    });

    test('a name already taken, ignoring case, spaces and underscores, is a 409 naming the entry that has it; its own name in other case is a rename', async () => {
      const name = unique('Supply chain');
      const id = await create(name);
      for (const clash of [name.toUpperCase(), `  ${name.toLowerCase()} `, name.replace(' ', '_')]) {
        const refused = await send('POST', list.api, { name: clash });
        expect(refused.status, clash).toBe(409);
        expect(((await refused.json()) as { error: string }).error).toBe(`${list.aLabel} named "${name}" already exists`);
      }
      const other = await create(unique('Other'));
      const renameClash = await send('PATCH', `${list.api}/${other}`, { name: name.toLowerCase() });
      expect(renameClash.status).toBe(409);
      expect(((await renameClash.json()) as { error: string }).error).toBe(`${list.aLabel} named "${name}" already exists`);

      const recased = await data<{ name: string }>(await send('PATCH', `${list.api}/${id}`, { name: name.toUpperCase() }), 200);
      expect(recased.name).toBe(name.toUpperCase());
    });

    test('two requests adding the same name in different case at once: one is added, the other is a 409', async () => {
      const name = unique('Race');
      const answers = await Promise.all([send('POST', list.api, { name }), send('POST', list.api, { name: name.toUpperCase() })]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      const listed = await data<{ rows: unknown[] }>(await send('GET', `${list.api}?q=${encodeURIComponent(name)}`), 200);
      expect(listed.rows).toHaveLength(1);
    });

    test('an entry in use is not deleted (409 naming how many records use it); once unused it is, and every change is audited with History', async () => {
      const name = unique('In use');
      const id = await create(name);
      await data(await send('PATCH', `${list.api}/${id}`, { description: '  Trimmed  ' }), 200);
      const record = await list.useEntry(env, token, id);
      const listed = await data<{ rows: Record<string, unknown>[] }>(await send('GET', `${list.api}?q=${encodeURIComponent(name)}`), 200);
      expect(listed.rows).toEqual([{ id, name, description: 'Trimmed', [list.countField]: 1 }]);

      const refused = await send('DELETE', `${list.api}/${id}`);
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { error: string }).error).toBe(`${list.label} "${name}" is used by ${list.used(1)} and cannot be deleted`);

      const history = await data<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `${list.api}/${id}/history`), 200);
      expect(history.map((h) => h.action)).toEqual(['update', 'create']);
      expect(history[0].changes).toEqual({ description: { before: '', after: 'Trimmed' } });

      expect((await send('DELETE', record)).status).toBe(204);
      expect((await send('DELETE', `${list.api}/${id}`)).status).toBe(204);
      expect(await auditOf(id)).toEqual([
        { module: 'settings', action: 'create' }, { module: 'settings', action: 'update' }, { module: 'settings', action: 'delete' },
      ]);
      expect(await refusalOf(env, () => send('GET', `${list.api}/${id}`))).toEqual(refusedWith(404, `${list.label} <id> not found`));
    });

    test("reading needs the register's read scope; adding needs settings:create and renaming or deleting settings:update", async () => {
      const reader = await makeToken(env, await adminActor(env), [list.readScope]);
      const id = await create(unique('Guarded'));
      expect((await send('GET', list.api, undefined, reader)).status).toBe(200);
      expect(await refusalOf(env, () => send('POST', list.api, { name: unique('Refused') }, reader)))
        .toEqual(refusedWith(403, 'forbidden', 'token scope settings:create missing'));
      expect(await refusalOf(env, () => send('PATCH', `${list.api}/${id}`, { name: unique('Refused') }, reader)))
        .toEqual(refusedWith(403, 'forbidden', 'token scope settings:update missing'));
      expect(await refusalOf(env, () => send('DELETE', `${list.api}/${id}`, undefined, reader)))
        .toEqual(refusedWith(403, 'forbidden', 'token scope settings:update missing'));
      const settingsOnly = await makeToken(env, await adminActor(env), ['settings:update']);
      expect(await refusalOf(env, () => send('GET', list.api, undefined, settingsOnly)))
        .toEqual(refusedWith(403, 'forbidden', `token scope ${list.readScope} missing`));
    });
  });

  describe(`${list.label}s on their Settings screen (the name list kit)`, () => {
    const action = `${list.screen}/${list.anchor}`;

    test('an administrator adds, renames and deletes an entry, each confirmed on the screen', async () => {
      const name = unique('Screen entry');
      const added = await admin.post(action, { name, description: 'Added on the screen' });
      expect(added.status, await added.clone().text()).toBe(303);
      expect(added.headers.get('location')).toBe(`${list.screen}?done=${list.anchor}-created#${list.anchor}`);
      const page = await html(await followed(added), 200);
      expect(page).toContain('Classification added.');
      expect(page).toContain(`value="${name}"`);
      const [entry] = (await data<{ rows: { id: string }[] }>(await send('GET', `${list.api}?q=${encodeURIComponent(name)}`), 200)).rows;
      expect(page).toContain(`action="${action}/${entry.id}/delete"`);

      const renamed = `${name} renamed`;
      const saved = await admin.post(`${action}/${entry.id}`, { name: renamed, description: 'Renamed on the screen' });
      expect(saved.headers.get('location')).toBe(`${list.screen}?done=${list.anchor}-updated#${list.anchor}`);
      expect(await html(await followed(saved), 200)).toContain('Classification renamed.');
      expect(await data<{ name: string; description: string }>(await send('GET', `${list.api}/${entry.id}`), 200))
        .toMatchObject({ name: renamed, description: 'Renamed on the screen' });

      const deleted = await admin.post(`${action}/${entry.id}/delete`, {});
      expect(deleted.headers.get('location')).toBe(`${list.screen}?done=${list.anchor}-deleted#${list.anchor}`);
      const after = await html(await followed(deleted), 200);
      expect(after).toContain('Classification deleted.');
      expect(after).not.toContain(renamed);
    });

    test('a refused entry comes back inside the screen: a taken or too long name on the add form as typed, a refused rename or delete above the list', async () => {
      const name = unique('Taken');
      const id = await create(name);
      const duplicate = await html(await admin.post(action, { name: name.toLowerCase(), description: 'Kept as typed' }), 409);
      expect(duplicate).toMatch(new RegExp(`id="f-name-error"[^>]*>${list.aLabel} named &quot;${name}&quot; already exists`));
      expect(duplicate).toContain('value="Kept as typed"');
      expect(duplicate).toContain('<nav');

      const tooLong = await html(await admin.post(action, { name: long(201), description: '' }), 400);
      expect(tooLong).toMatch(/id="f-name-error"/);

      const other = await create(unique('Other'));
      const renameClash = await html(await admin.post(`${action}/${other}`, { name, description: '' }), 409);
      expect(renameClash).toMatch(new RegExp(`role="alert"[^>]*>${list.aLabel} named &quot;${name}&quot; already exists`));
      const renameBlank = await html(await admin.post(`${action}/${other}`, { name: ' ', description: '' }), 400);
      expect(renameBlank).toMatch(/role="alert"[^>]*>Not renamed: name must not be blank/);

      const record = await list.useEntry(env, token, id);
      const inUse = await html(await admin.post(`${action}/${id}/delete`, {}), 409);
      expect(inUse).toContain(`${list.label} &quot;${name}&quot; is used by ${list.used(1)} and cannot be deleted`);
      expect(await html(await admin.get(list.screen), 200)).toContain(`In use by ${list.used(1)}`);
      expect((await send('DELETE', record)).status).toBe(204);
    });

    test('every input of the section takes the one length rule: names up to 200 characters, descriptions up to 2000', async () => {
      await create(unique('Lengths'));
      const page = await html(await admin.get(list.screen), 200);
      const section = page.slice(page.indexOf(`id="${list.anchor}"`));
      const nameLimits = [...section.matchAll(/name="name"[^>]*maxlength="(\d+)"|maxlength="(\d+)"[^>]*name="name"/g)].map((m) => m[1] ?? m[2]);
      expect(nameLimits.length).toBeGreaterThan(1);
      expect(new Set(nameLimits)).toEqual(new Set(['200']));
      const descriptionLimits = [...section.matchAll(/name="description"[^>]*maxlength="(\d+)"|maxlength="(\d+)"[^>]*name="description"/g)].map((m) => m[1] ?? m[2]);
      expect(new Set(descriptionLimits)).toEqual(new Set(['2000']));
    });

    test('someone with settings:read alone sees the entries without forms; posting a change is refused for the missing right', async () => {
      const name = unique('Seen');
      const id = await create(name);
      const viewer = await makeUser(env, { 'settings:read': 'all' });
      const b = browser(env);
      expect((await b.post('/sign-in', { email: viewer.email, password: viewer.password, next: list.screen })).status).toBe(303);
      const page = await html(await b.get(list.screen), 200);
      expect(page).toContain(name);
      expect(page).not.toContain(`action="${action}/${id}"`);
      expect(page).not.toContain(`action="${action}"`);
      const signedIn = await signedInBrowser(env, viewer.email, viewer.password);
      expect(await refusalOf(env, () => signedIn.post(`${action}/${id}/delete`, {})))
        .toEqual(refusedWith(403, undefined, 'user right settings:update missing'));
    });
  });
}
