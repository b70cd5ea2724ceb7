import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiTokens, auditLog, outbox } from '../../db/schema';
import { createApp } from '../../src/app';
import { readConfig } from '../../src/config';
import { hashSecret } from '../../src/modules/apiTokens/service';
import { assignRoleToGroup, createGroup, createRole, createUser, setUserStatus } from '../../src/modules/people/service';
import { boot } from '../../src/platform/modules/bootstrap';
import { systemActor, type Permission } from '../../src/platform/permissions/permissions';
import { bearer } from '../helpers/factories';
import { createTestDatabaseUrl } from '../helpers/db';

// Every test has a generous timeout: booting private services, hashing passwords and spawning processes
// take seconds when the machine is busy.

const ROOT = join(import.meta.dir, '..', '..');
const CLI = join(ROOT, 'scripts', 'token-create.ts');
const CLI_ADMIN = 'cli-admin@test.example';
const dateIn = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const tempDirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'grc-token-cli-'));
  tempDirs.push(dir);
  return dir;
};

/** What the CLI reads, like the server: DATABASE_URL when the suite runs on PostgreSQL, otherwise an embedded DATA_DIR. */
let databaseEnv: Record<string, string>;
beforeAll(async () => {
  const url = await createTestDatabaseUrl();
  databaseEnv = url ? { DATABASE_URL: url } : { DATA_DIR: tempDir() };
});
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'DATABASE_URL' && key !== 'SMTP_URL') env[key] = value;
  return { ...env, ADMIN_EMAIL: CLI_ADMIN, ADMIN_PASSWORD: 'a long enough password', LOG_LEVEL: 'error', ...extra };
}

async function runCli(args: string[], extra: Record<string, string> = databaseEnv) {
  const child = Bun.spawn([process.execPath, CLI, ...args], { cwd: ROOT, env: childEnv(extra), stdout: 'pipe', stderr: 'pipe' });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at .+[:(]/);

describe('bun run token:create', () => {
  test('creates a token for the user, audited as a CLI creation, and prints the secret alone on the last line', async () => {
    const name = 'Bundle loader (migration, ops)';
    const { code, stdout, stderr } = await runCli(['--', '--email', CLI_ADMIN, '--name', name, '--scopes', 'risks:read, risks:create', '--expires', dateIn(14)]);
    expect(code, stderr + stdout).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const secret = lines.at(-1)!;
    expect(secret).toMatch(/^aat_[A-Za-z0-9_-]{43}$/);
    expect(stdout).toContain(`Expires: ${dateIn(14)}`);

    // Open the same database the CLI used (it has exited and released it) and use the token over REST.
    const ctx = await boot(readConfig({ ...databaseEnv, ADMIN_EMAIL: CLI_ADMIN, LOG_LEVEL: 'error' }));
    try {
      const [row] = await ctx.db.select().from(apiTokens).where(eq(apiTokens.tokenHash, hashSecret(secret)));
      expect(row).toMatchObject({ name, scopes: ['risks:read', 'risks:create'] });
      const [entry] = await ctx.db.select().from(auditLog)
        .where(and(eq(auditLog.module, 'apiTokens'), eq(auditLog.action, 'create'), eq(auditLog.recordId, row.id)));
      expect(entry).toMatchObject({ via: 'cli', actorKind: 'user', actorUserId: row.createdBy });
      const alerts = (await ctx.db.select().from(outbox)).filter((m) => m.subject.includes(name));
      expect(alerts).toHaveLength(1);
      expect(alerts[0].recipients).toEqual([CLI_ADMIN]);
      const res = await createApp(ctx).handle(new Request('http://localhost/api/v1/risks', bearer(secret)));
      expect(res.status, await res.text()).toBe(200);
    } finally {
      await ctx.close();
    }
  }, 60_000);

  test('an unknown email, an unknown scope, an impossible or too late date, or a missing option: a clear error and a non-zero exit', async () => {
    const cases: { args: string[]; says: string }[] = [
      { args: ['--email', 'nobody@test.example', '--name', 'x', '--scopes', 'risks:read'], says: 'No user with email nobody@test.example' },
      { args: ['--email', CLI_ADMIN, '--name', 'x', '--scopes', 'risks:read,risks:fly'], says: 'Unknown scope risks:fly' },
      { args: ['--email', CLI_ADMIN, '--name', 'x', '--scopes', 'risks:read', '--expires', '2026-02-30'], says: '--expires: must be a real date' },
      { args: ['--email', CLI_ADMIN, '--name', 'x', '--scopes', 'risks:read', '--expires', '31/12/2026'], says: '--expires must be a date written YYYY-MM-DD' },
      { args: ['--email', CLI_ADMIN, '--name', 'x', '--scopes', 'risks:read', '--expires', dateIn(400)], says: 'at most 365 days' },
      { args: ['--email', CLI_ADMIN, '--name', 'x'.repeat(121), '--scopes', 'risks:read'], says: '--name: must be at most 120 characters' },
      { args: ['--email', CLI_ADMIN, '--scopes', 'risks:read'], says: 'Missing --name' },
    ];
    for (const { args, says } of cases) {
      const { code, stdout, stderr } = await runCli(args);
      expect(code, `${args.join(' ')}\n${stdout}${stderr}`).not.toBe(0);
      expect(stderr, args.join(' ')).toContain(says);
      expect(stdout).not.toContain('aat_');
      noStackTrace(stderr);
    }
  }, 120_000);

  test('a user without apiTokens:create, scopes beyond the user\'s rights, or a deactivated user: refused, no token made', async () => {
    const ctx = await boot(readConfig({ ...databaseEnv, ADMIN_EMAIL: CLI_ADMIN, LOG_LEVEL: 'error' }));
    const emails = { reader: 'cli-reader@test.example', issuer: 'cli-issuer@test.example', gone: 'cli-gone@test.example' };
    try {
      await ctx.db.transaction(async (tx) => {
        const system = systemActor();
        const person = async (email: string, permissions: { permission: Permission; level: 'own' | 'all' }[]) => {
          const { id: roleId } = await createRole(tx, system, { name: `role ${email}`, permissions });
          const { id: groupId } = await createGroup(tx, system, { name: `group ${email}` });
          await assignRoleToGroup(tx, system, groupId, roleId);
          const { id } = await createUser(tx, system, { email, name: email, groupIds: [groupId] });
          return id;
        };
        await person(emails.reader, [{ permission: 'risks:read', level: 'all' }]);
        const issuer = [{ permission: 'risks:read', level: 'own' }, { permission: 'apiTokens:create', level: 'own' }] as const;
        await person(emails.issuer, [...issuer]);
        const gone = await person(emails.gone, [...issuer]);
        await setUserStatus(tx, system, gone, 'deactivated');
      });
    } finally {
      await ctx.close();
    }
    const cases: { args: string[]; says: string }[] = [
      { args: ['--email', emails.reader, '--name', 'x', '--scopes', 'risks:read'], says: `${emails.reader} may not create API tokens` },
      { args: ['--email', emails.issuer, '--name', 'x', '--scopes', 'risks:read,risks:delete'], says: '--scopes: exceed your own rights: risks:delete' },
      { args: ['--email', emails.gone, '--name', 'x', '--scopes', 'risks:read'], says: `User ${emails.gone} is deactivated` },
    ];
    for (const { args, says } of cases) {
      const { code, stdout, stderr } = await runCli(args);
      expect(code, `${args.join(' ')}\n${stdout}${stderr}`).toBe(1);
      expect(stderr, args.join(' ')).toContain(says);
      expect(stdout).not.toContain('aat_');
      noStackTrace(stderr);
    }
    const ok = await runCli(['--email', emails.issuer.toUpperCase(), '--name', 'narrow', '--scopes', 'risks:read']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trimEnd().split('\n').at(-1)).toMatch(/^aat_/);
  }, 120_000);

  test('on the embedded database held by another process it says the database is in use and exits non-zero', async () => {
    const dataDir = tempDir();
    const holder = Bun.spawn([process.execPath, '-e', `
      const { openDatabase } = await import(${JSON.stringify(join(ROOT, 'db', 'client.ts'))});
      await openDatabase({ dataDir: process.env.DATA_DIR });
      console.log('ready');
      setInterval(() => {}, 60_000);
    `], { cwd: ROOT, env: childEnv({ DATA_DIR: dataDir }), stdout: 'pipe', stderr: 'inherit' });
    try {
      const reader = holder.stdout.getReader();
      let seen = '';
      while (!seen.includes('ready')) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the holder exited before opening the database: ${seen}`);
        seen += new TextDecoder().decode(value);
      }
      const { code, stdout, stderr } = await runCli(['--email', CLI_ADMIN, '--name', 'x', '--scopes', 'risks:read'], { DATA_DIR: dataDir });
      expect(code, stdout + stderr).not.toBe(0);
      expect(stderr).toContain('The database is in use');
      expect(stderr).toContain(String(holder.pid));
      expect(stdout).not.toContain('aat_');
      noStackTrace(stderr);
    } finally {
      holder.kill();
      await holder.exited;
    }
  }, 60_000);
});
