import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { addGroupMember, removeGroupMember } from '../../src/modules/people/service';
import { systemActor, type Level, type Permission } from '../../src/platform/permissions/permissions';
import { bearer, makeUser, unique } from '../helpers/factories';
import { bundleFile, baseBundle, load, LOADER_SCOPES, removeTempDirs, SMALL_BUNDLE, startInstance, writes, type Instance } from './helpers';

/**
 * Specification, "Bundle loader token scopes" and "Service accounts": before writing, the loader checks the token
 * against the table with requests that write nothing, and stops with one message naming every missing scope.
 * A service account holding exactly the table's rights, with a token of exactly those scopes, loads a full bundle.
 */

let instance: Instance;
beforeAll(async () => {
  instance = await startInstance();
});
afterAll(() => {
  instance.stop();
  removeTempDirs();
});

/** A dedicated non-administrator user whose role grants `rights` (level all) plus Read and Create on API tokens, and its token. */
async function serviceAccount(rights: Permission[], scopes: Permission[] = rights): Promise<{ token: string; userId: string; name: string }> {
  const grants: Partial<Record<Permission, Level>> = { 'apiTokens:read': 'own', 'apiTokens:create': 'own' };
  for (const right of rights) grants[right] = 'all';
  const name = unique('Migration service account');
  const user = await makeUser(instance.env, grants, name);
  return { token: await instance.token(scopes, await user.actor()), userId: user.id, name };
}

describe('scope check', () => {
  test('a token with exactly the table\'s scopes, of a service account with exactly those rights, loads a full bundle; the re-run writes nothing', async () => {
    await instance.allowOutsideApprovals(true);
    const { token, userId, name } = await serviceAccount(LOADER_SCOPES);
    const first = await load([SMALL_BUNDLE, '--url', instance.url, '--apply', '--json'], { token });
    expect(first.code, JSON.stringify(first.json?.failures)).toBe(0);
    expect(first.json!.counts).toMatchObject({
      riskScale: { update: 1 }, classifications: { create: 1, update: 1, unchanged: 1 }, package: { create: 1 }, controls: { create: 4 },
      policies: { create: 3 }, approvals: { create: 2 }, risks: { create: 4 }, treatments: { create: 7 }, mappings: { create: 8 },
      requirementStatuses: { update: 4 },
    });
    const again = await load([SMALL_BUNDLE, '--url', instance.url, '--apply', '--json'], { token });
    expect(again.code).toBe(0);
    expect(writes(again)).toEqual([]);
    for (const c of Object.values(again.json!.counts)) expect(c!.create + c!.update).toBe(0);
    // Owners are never set, so the records are the service account's; History names the API, the token and its creator.
    const reader = await instance.token(['risks:read']);
    const risks = await instance.env.request('/api/v1/risks?q=R-1%20Stolen', bearer(reader));
    const [risk] = ((await risks.json()) as { data: { rows: { id: string; owner: { id: string } }[] } }).data.rows;
    expect(risk.owner.id).toBe(userId);
    const history = await instance.env.request(`/api/v1/risks/${risk.id}/history`, bearer(reader));
    const [created] = ((await history.json()) as { data: { action: string; via: string; actor: string | null; tokenId: string | null }[] }).data;
    expect(created).toMatchObject({ action: 'create', via: 'api', actor: `${name}@test.example` });
    expect(created.tokenId).toBeString();
  });

  test('a token short of scopes stops the run before any write, with one message naming every missing scope', async () => {
    const scopes = LOADER_SCOPES.filter((s) => !['risks:update', 'controls:create', 'policies:review', 'settings:update'].includes(s));
    const token = await instance.token(scopes);
    await instance.allowOutsideApprovals(true);
    const result = await load([SMALL_BUNDLE, '--url', instance.url, '--apply'], { token });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      'the token lacks 4 scopes the load needs (in its scopes or its creator\'s rights): risks:update, controls:create, policies:review, settings:update',
    );
    expect(writes(result)).toEqual([]);
  });

  test('a right the token has but its creator no longer holds counts as missing too', async () => {
    // The account made its token while a second group gave it compliance:create, then left that group.
    const account = await makeUser(instance.env, { ...Object.fromEntries(LOADER_SCOPES.filter((s) => s !== 'compliance:create').map((s) => [s, 'all'])), 'apiTokens:create': 'own' });
    const lender = await makeUser(instance.env, { 'compliance:create': 'all' });
    const system = systemActor();
    await instance.env.ctx.db.transaction((tx) => addGroupMember(tx, system, lender.groupId, account.id));
    const token = await instance.token(LOADER_SCOPES.filter((s) => s !== 'policies:review'), await account.actor());
    await instance.env.ctx.db.transaction((tx) => removeGroupMember(tx, system, lender.groupId, account.id));
    const result = await load([bundleFile(baseBundle('creator-')), '--url', instance.url, '--apply'], { token });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe('the token lacks a scope the load needs (in its scopes or its creator\'s rights): compliance:create');
    expect(writes(result)).toEqual([]);
  });

  test('a bundle needs only the scopes of what it holds; Review on Policies only when it records signatories', async () => {
    const bundle = { format: 'grc-bundle', version: 1, controls: [{ ref: 'only-C-1', name: 'only-C-1 Controls alone' }] };
    const token = await instance.token(['controls:read', 'controls:create', 'controls:update']);
    const result = await load([bundleFile(bundle), '--url', instance.url, '--apply', '--json'], { token });
    expect(result.code, result.stderr).toBe(0);
    expect(result.json!.counts).toEqual({ controls: { create: 1, update: 0, unchanged: 0, failed: 0, skipped: 0 } });
    const classifications = { format: 'grc-bundle', version: 1, classifications: [{ name: unique('Reputation'), description: 'Press and customers' }] };
    const settings = await instance.token(['risks:read', 'settings:create', 'settings:update']);
    const added = await load([bundleFile(classifications), '--url', instance.url, '--apply', '--json'], { token: settings });
    expect(added.code, added.stderr).toBe(0);
    expect(added.json!.counts).toEqual({ classifications: { create: 1, update: 0, unchanged: 0, failed: 0, skipped: 0 } });
  });

  test('a dry run with read scopes only reports what it would do and warns that --apply would stop; without a read scope it stops', async () => {
    const readOnly = await instance.token(['risks:read', 'controls:read', 'policies:read', 'compliance:read']);
    const bundle = bundleFile(baseBundle('readonly-'));
    const dry = await load([bundle, '--url', instance.url, '--json'], { token: readOnly });
    expect(dry.code).toBe(0);
    expect(dry.json!.warnings[0]).toBe(
      '--apply would stop: the token lacks 10 scopes the load needs (in its scopes or its creator\'s rights): risks:create, risks:update, controls:create, controls:update, policies:create, policies:update, compliance:create, compliance:update, settings:create, settings:update',
    );
    const noRead = await instance.token(LOADER_SCOPES.filter((s) => s !== 'controls:read'));
    const stopped = await load([bundle, '--url', instance.url], { token: noRead });
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('the token lacks a scope the load needs (in its scopes or its creator\'s rights): controls:read');
  });
});
