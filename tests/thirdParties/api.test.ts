import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';
import type { Actor } from '../../src/platform/permissions/permissions';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
/** Third parties at level all, and risks:read: may link risks. */
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, ['thirdParties:read', 'thirdParties:create', 'thirdParties:update', 'thirdParties:delete', 'risks:read']);
});

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;
const create = async (body: Record<string, unknown>, secret = token) => {
  const res = await send('POST', '/api/v1/third-parties', body, secret);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
};
const base = (id: string) => `/api/v1/third-parties/${id}`;
type HistoryEntry = { action: string; changes: Record<string, { before: unknown; after: unknown }> };
const historyOf = async (id: string) => json<HistoryEntry[]>(await send('GET', `${base(id)}/history`));

describe('third parties over REST', () => {
  test('a third party created with only a name is an active vendor with no website, owned by its creator', async () => {
    const id = await create({ name: 'Acme Hosting' });
    const party = await json<Record<string, unknown>>(await send('GET', base(id)));
    expect(party).toMatchObject({ name: 'Acme Hosting', description: '', type: 'vendor', status: 'active', website: null });
    expect((party.owner as { email: string }).email).toBe('admin@test.example');
  });

  test('type and status take only their listed values', async () => {
    const id = await create({ name: 'Partner Co', type: 'partner', status: 'offboarding' });
    expect(await json<Record<string, unknown>>(await send('GET', base(id)))).toMatchObject({ type: 'partner', status: 'offboarding' });
    for (const [field, body] of [['type', { name: 'X', type: 'supplier' }], ['status', { name: 'X', status: 'inactive' }]] as const) {
      const res = await send('POST', '/api/v1/third-parties', body);
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toContain(field);
    }
  });

  test('the website must be an http or https address with a host, at most 2000 characters', async () => {
    const id = await create({ name: 'Web Co', website: 'https://web.example.com/security' });
    expect((await json<{ website: string }>(await send('GET', base(id)))).website).toBe('https://web.example.com/security');
    for (const website of ['ftp://files.example.com', 'javascript:alert(1)', 'example.com', 'https://', 'http://exa mple.com', `https://example.com/${'a'.repeat(2000)}`]) {
      const res = await send('POST', '/api/v1/third-parties', { name: 'Bad site', website });
      expect(res.status, `${website.slice(0, 40)}: ${await res.clone().text()}`).toBe(400);
      expect(await errorOf(res)).toContain('website');
    }
    const cleared = await send('PATCH', base(id), { website: null });
    expect((await json<{ website: string | null }>(cleared)).website).toBeNull();
  });

  test('the list filters by type and status and searches by name', async () => {
    const marker = unique('Findable');
    await create({ name: `${marker} customer`, type: 'customer', status: 'terminated' });
    await create({ name: `${marker} vendor`, status: 'terminated' });
    const page = await json<{ rows: { name: string }[]; total: number }>(
      await send('GET', `/api/v1/third-parties?q=${encodeURIComponent(marker)}&type=customer&status=terminated`),
    );
    expect(page.total).toBe(1);
    expect(page.rows[0].name).toBe(`${marker} customer`);
  });

  test('a user at level own sees only the third parties they or their groups own; their token likewise', async () => {
    const user = await makeUser(env, { 'thirdParties:read': 'own', 'thirdParties:create': 'own', 'thirdParties:update': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['thirdParties:read', 'thirdParties:create', 'thirdParties:update']);
    const mine = await create({ name: 'Mine Ltd' }, own);
    const ours = await create({ name: 'Our Group Ltd', ownerId: null, ownerGroupId: user.groupId });
    const theirs = await create({ name: 'Theirs Ltd' });
    const page = await json<{ rows: { id: string }[] }>(await send('GET', '/api/v1/third-parties?pageSize=200', undefined, own));
    expect(page.rows.map((r) => r.id).sort()).toEqual([mine, ours].sort());
    expect(await refusalOf(env, async () => send('GET', base(theirs), undefined, own))).toEqual(refusedWith(404, 'Third party <id> not found', 'no thirdParties:read on Third party <id>'));
    expect(await refusalOf(env, async () => send('GET', `${base(theirs)}/contacts`, undefined, own))).toEqual(refusedWith(404, 'Third party <id> not found', 'no thirdParties:read on Third party <id>'));
    expect(await refusalOf(env, async () => send('POST', `${base(theirs)}/contacts`, { name: 'Sneaky' }, own))).toEqual(refusedWith(404, 'Third party <id> not found', 'no thirdParties:read on Third party <id>'));
    expect(await refusalOf(env, async () => send('POST', '/api/v1/third-parties', { name: 'Given away', ownerId: admin.userId }, own)))
      .toEqual(refusedWith(403, 'forbidden', 'thirdParties:create is at level own: the record must be owned by you or one of your groups'));
    // A sub-processor the user cannot read is not found, even though it exists.
    expect(await refusalOf(env, async () => send('POST', `${base(mine)}/sub-processors`, { thirdPartyId: theirs }, own))).toEqual(refusedWith(404, 'thirdPartyId: Third party <id> not found', 'link to Third party <id>: not readable (thirdParties:read)'));
    expect((await send('POST', `${base(mine)}/sub-processors`, { thirdPartyId: ours }, own)).status).toBe(201);
  });

  test('a screen user at level own is held to the same rule by the service', async () => {
    const user = await makeUser(env, { 'thirdParties:read': 'own' });
    const theirs = await create({ name: 'Not yours GmbH' });
    const { getRecord } = await import('../../src/platform/records/records');
    const { thirdPartyKind } = await import('../../src/modules/thirdParties/service');
    await expect(getRecord(env.ctx.db, thirdPartyKind, await user.actor(), theirs)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('contacts', () => {
  test('contacts are added, listed by name, changed and removed, each in the History of the third party', async () => {
    const id = await create({ name: 'Contactable Inc' });
    const added = await send('POST', `${base(id)}/contacts`, { name: 'Zoe Ward', email: 'zoe@contactable.example', phone: '+44 20 7946 0000', role: 'Account manager' });
    expect(added.status, await added.clone().text()).toBe(201);
    const { id: zoe } = await json<{ id: string }>(added);
    await send('POST', `${base(id)}/contacts`, { name: 'Adam Lee' });
    const contacts = await json<{ name: string; email: string | null }[]>(await send('GET', `${base(id)}/contacts`));
    expect(contacts.map((c) => c.name)).toEqual(['Adam Lee', 'Zoe Ward']);
    expect(contacts[0].email).toBeNull();

    const changed = await send('PATCH', `${base(id)}/contacts/${zoe}`, { role: 'Security officer' });
    expect(changed.status, await changed.clone().text()).toBe(200);
    expect(await json<Record<string, unknown>>(changed)).toMatchObject({ name: 'Zoe Ward', role: 'Security officer', email: 'zoe@contactable.example' });
    expect((await send('DELETE', `${base(id)}/contacts/${zoe}`)).status).toBe(204);
    expect(await refusalOf(env, async () => send('DELETE', `${base(id)}/contacts/${zoe}`))).toEqual(refusedWith(404, 'Contact <id> of third party <id> not found'));

    const history = await historyOf(id);
    expect(history.map((h) => h.action)).toEqual(['contact.delete', 'contact.update', 'contact.create', 'contact.create', 'create']);
    expect(history[1].changes).toEqual({ role: { before: 'Account manager', after: 'Security officer' } });
  });

  test('a contact email must be an email address, and a name is required', async () => {
    const id = await create({ name: 'Strict Mail plc' });
    for (const email of ['not-an-email', 'two@@example.com', 'no-tld@example', 'spaces in@example.com']) {
      const res = await send('POST', `${base(id)}/contacts`, { name: 'Someone', email });
      expect(res.status, email).toBe(400);
      expect(await errorOf(res)).toContain('email');
    }
    const blank = await send('POST', `${base(id)}/contacts`, { name: '  ' });
    expect(blank.status).toBe(400);
    expect(await errorOf(blank)).toContain('name');
  });

  test('changing contacts needs thirdParties:update; reading them needs only :read', async () => {
    const id = await create({ name: 'Read Only Corp' });
    await send('POST', `${base(id)}/contacts`, { name: 'Visible Person' });
    const reader = await makeToken(env, admin, ['thirdParties:read']);
    expect((await json<unknown[]>(await send('GET', `${base(id)}/contacts`, undefined, reader)))).toHaveLength(1);
    expect(await refusalOf(env, async () => send('POST', `${base(id)}/contacts`, { name: 'Blocked' }, reader))).toEqual(refusedWith(403, 'forbidden', 'token scope thirdParties:update missing'));
  });

  test('contacts are deleted with their third party', async () => {
    const id = await create({ name: 'Short Lived Ltd' });
    const { id: contact } = await json<{ id: string }>(await send('POST', `${base(id)}/contacts`, { name: 'Gone Soon' }));
    expect((await send('DELETE', base(id))).status).toBe(204);
    const [row] = await env.ctx.database.raw<{ n: number }>('select count(*)::int as n from third_party_contacts where id = $1', [contact]);
    expect(row.n).toBe(0);
  });
});

describe('linked risks', () => {
  test('a risk is linked, listed and unlinked, each in the History', async () => {
    const id = await create({ name: 'Risky Vendor' });
    const riskId = await makeRisk(env, admin, { title: unique('Vendor outage') });
    const linked = await send('POST', `${base(id)}/risks`, { riskId });
    expect(linked.status, await linked.clone().text()).toBe(201);
    expect((await send('POST', `${base(id)}/risks`, { riskId })).status).toBe(409);
    const risks = await json<{ riskId: string; title: string }[]>(await send('GET', `${base(id)}/risks`));
    expect(risks.map((r) => r.riskId)).toEqual([riskId]);
    expect((await send('DELETE', `${base(id)}/risks/${riskId}`)).status).toBe(204);
    expect(await json<unknown[]>(await send('GET', `${base(id)}/risks`))).toEqual([]);
    expect((await historyOf(id)).map((h) => h.action)).toEqual(['risk.unlink', 'risk.link', 'create']);
  });

  test('a token without a risks scope is refused with 403 (scopes bound everything a request does)', async () => {
    const id = await create({ name: 'Scope Bound Ltd' });
    const riskId = await makeRisk(env, admin);
    const noRisks = await makeToken(env, admin, ['thirdParties:read', 'thirdParties:update']);
    expect(await refusalOf(env, async () => send('POST', `${base(id)}/risks`, { riskId }, noRisks))).toEqual(refusedWith(403, 'forbidden', 'token scope risks:read missing'));
    expect(await refusalOf(env, async () => send('GET', `${base(id)}/risks`, undefined, noRisks))).toEqual(refusedWith(403, 'forbidden', 'token scope risks:read missing'));
    await send('POST', `${base(id)}/risks`, { riskId });
    expect(await refusalOf(env, async () => send('DELETE', `${base(id)}/risks/${riskId}`, undefined, noRisks))).toEqual(refusedWith(403, 'forbidden', 'token scope risks:read missing'));
  });

  test('a risk the caller cannot read answers 404: missing, or not theirs at own level', async () => {
    const user = await makeUser(env, {
      'thirdParties:read': 'own', 'thirdParties:create': 'own', 'thirdParties:update': 'own', 'risks:read': 'own', 'risks:create': 'own', 'apiTokens:create': 'own',
    });
    const userActor = await user.actor();
    const own = await makeToken(env, userActor, ['thirdParties:read', 'thirdParties:update', 'thirdParties:create', 'risks:read']);
    const id = await create({ name: 'Own Level Vendor' }, own);
    const notTheirs = await makeRisk(env, admin);
    const theirs = await makeRisk(env, userActor);
    expect(await refusalOf(env, async () => send('POST', `${base(id)}/risks`, { riskId: notTheirs }, own))).toEqual(refusedWith(404, 'riskId: Risk <id> not found', 'link to Risk <id>: not readable (risks:read)'));
    expect(await refusalOf(env, async () => send('POST', `${base(id)}/risks`, { riskId: crypto.randomUUID() }, own))).toEqual(refusedWith(404, 'riskId: Risk <id> not found', 'link to Risk <id>: no such record'));
    expect((await send('POST', `${base(id)}/risks`, { riskId: theirs }, own)).status).toBe(201);
    // The admin links a risk the user cannot read; the user's list leaves it out and they cannot unlink it.
    expect((await send('POST', `${base(id)}/risks`, { riskId: notTheirs })).status).toBe(201);
    const listed = await json<{ riskId: string }[]>(await send('GET', `${base(id)}/risks`, undefined, own));
    expect(listed.map((r) => r.riskId)).toEqual([theirs]);
    expect(await refusalOf(env, async () => send('DELETE', `${base(id)}/risks/${notTheirs}`, undefined, own))).toEqual(refusedWith(404, 'Risk <id> not found', 'link to Risk <id>: not readable (risks:read)'));
  });

  test('a third party with linked risks cannot be deleted; the 409 names them', async () => {
    const id = await create({ name: 'Still Linked Ltd' });
    const riskId = await makeRisk(env, admin);
    await send('POST', `${base(id)}/risks`, { riskId });
    const refused = await send('DELETE', base(id));
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('1 linked risk');
    await send('DELETE', `${base(id)}/risks/${riskId}`);
    expect((await send('DELETE', base(id))).status).toBe(204);
  });
});

describe('sub-processors', () => {
  test('a third party is added as a sub-processor of another, listed and removed, each in the History', async () => {
    const cloud = await create({ name: 'Cloud Provider' });
    const dc = await create({ name: 'Data Centre Operator' });
    const added = await send('POST', `${base(cloud)}/sub-processors`, { thirdPartyId: dc });
    expect(added.status, await added.clone().text()).toBe(201);
    expect((await send('POST', `${base(cloud)}/sub-processors`, { thirdPartyId: dc })).status).toBe(409);
    const subs = await json<{ thirdPartyId: string; name: string }[]>(await send('GET', `${base(cloud)}/sub-processors`));
    expect(subs).toMatchObject([{ thirdPartyId: dc, name: 'Data Centre Operator' }]);
    expect((await send('DELETE', `${base(cloud)}/sub-processors/${dc}`)).status).toBe(204);
    expect(await refusalOf(env, async () => send('DELETE', `${base(cloud)}/sub-processors/${dc}`))).toEqual(refusedWith(404, 'Sub-processor <id> of third party <id> not found'));
    const history = await historyOf(cloud);
    expect(history.map((h) => h.action)).toEqual(['subProcessor.remove', 'subProcessor.add', 'create']);
    expect(history[1].changes.subProcessorName).toEqual({ before: null, after: 'Data Centre Operator' });
  });

  test('a third party cannot be its own sub-processor', async () => {
    const id = await create({ name: 'Self Processor' });
    const res = await send('POST', `${base(id)}/sub-processors`, { thirdPartyId: id });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain('thirdPartyId');
  });

  test('a link that would close a cycle is refused, however long the chain', async () => {
    const a = await create({ name: 'Chain A' });
    const b = await create({ name: 'Chain B' });
    const c = await create({ name: 'Chain C' });
    expect((await send('POST', `${base(a)}/sub-processors`, { thirdPartyId: b })).status).toBe(201);
    expect((await send('POST', `${base(b)}/sub-processors`, { thirdPartyId: c })).status).toBe(201);
    const direct = await send('POST', `${base(b)}/sub-processors`, { thirdPartyId: a });
    expect(direct.status).toBe(400);
    const longer = await send('POST', `${base(c)}/sub-processors`, { thirdPartyId: a });
    expect(longer.status).toBe(400);
    expect(await errorOf(longer)).toContain('cycle');
    // Sharing a sub-processor is not a cycle.
    expect((await send('POST', `${base(a)}/sub-processors`, { thirdPartyId: c })).status).toBe(201);
  });

  test('two opposite links sent at once cannot both succeed', async () => {
    const a = await create({ name: 'Race A' });
    const b = await create({ name: 'Race B' });
    const results = await Promise.all([
      send('POST', `${base(a)}/sub-processors`, { thirdPartyId: b }),
      send('POST', `${base(b)}/sub-processors`, { thirdPartyId: a }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
  });

  test('a third party that is a sub-processor of another cannot be deleted; the one it serves can', async () => {
    const main = await create({ name: 'Main Processor' });
    const sub = await create({ name: 'Busy Sub-processor' });
    await send('POST', `${base(main)}/sub-processors`, { thirdPartyId: sub });
    const refused = await send('DELETE', base(sub));
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toContain('1 third party using it as a sub-processor');
    expect((await send('DELETE', base(main))).status).toBe(204);
    expect((await send('DELETE', base(sub))).status).toBe(204);
  });
});

describe('History of the third party itself', () => {
  test('changes and deletion are recorded', async () => {
    const id = await create({ name: 'Historic Ltd' });
    const patched = await send('PATCH', base(id), { status: 'terminated', website: 'http://historic.example' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const [latest] = await historyOf(id);
    expect(latest).toMatchObject({
      action: 'update',
      changes: { status: { before: 'active', after: 'terminated' }, website: { before: null, after: 'http://historic.example' } },
    });
    expect((await send('DELETE', base(id))).status).toBe(204);
    expect(await refusalOf(env, async () => send('GET', base(id)))).toEqual(refusedWith(404, 'Third party <id> not found'));
  });
});
