/**
 * A real OpenLDAP directory for the LDAP sign-in tests: its own slapd on a free loopback port, with a temporary
 * configuration (slapd.conf, the mdb backend) and data loaded with slapadd before it starts. Debian's `slapd` package
 * provides it (installed by .ci/run); without it the tests skip and say why.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { Attribute, Change, Client } from 'ldapts';
import { join } from 'node:path';

export const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const SCHEMA_DIR = '/etc/ldap/schema';
const MODULE_DIR = '/usr/lib/ldap';

/** Why the directory tests cannot run here, or null when they can. */
export function slapdMissing(): string | null {
  if (!existsSync(SLAPD) || !existsSync(SLAPADD)) return `${SLAPD} is not installed (Debian package slapd; .ci/run installs it)`;
  if (!existsSync(join(SCHEMA_DIR, 'inetorgperson.schema'))) return `${SCHEMA_DIR}/inetorgperson.schema is missing (Debian package slapd)`;
  if (spawnSync('openssl', ['version']).status !== 0) return 'openssl is not installed (it makes the test directory\'s certificates)';
  return null;
}

export const BASE_DN = 'dc=example,dc=test';
export const PEOPLE_DN = `ou=people,${BASE_DN}`;
export const GROUPS_DN = `ou=groups,${BASE_DN}`;
/** The service account the service searches with: it may read people and groups, nothing else. */
export const SERVICE_DN = `cn=grc-reader,${BASE_DN}`;
export const SERVICE_PASSWORD = 'reader secret for tests';

export interface DirectoryPerson {
  uid: string;
  cn: string;
  mail: string;
  password: string;
}

export interface DirectoryGroup {
  cn: string;
  /** uids of the members. */
  members: string[];
  /** cns of the groups it holds (nested groups). */
  groups?: string[];
}

export const personDn = (uid: string) => `uid=${uid},${PEOPLE_DN}`;
export const groupDn = (cn: string) => `cn=${cn},${GROUPS_DN}`;

export interface Slapd {
  url: string;
  port: number;
  /** With `tls`: the ldaps:// address, and the PEM of the private authority that signed the directory's certificate. */
  ldapsUrl?: string;
  caPem?: string;
  /** Stops the directory (the port then refuses connections); safe to call twice. */
  stop(): Promise<void>;
  /** Replaces a group's people while the directory runs (as the root DN); the groups it holds stay. */
  setGroupMembers(cn: string, uids: string[]): Promise<void>;
}

const ROOT_DN = `cn=admin,${BASE_DN}`;
const ROOT_PASSWORD = 'root-secret-for-tests';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

function entries(people: DirectoryPerson[], groups: DirectoryGroup[]): string {
  const blocks = [
    `dn: ${BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example`,
    `dn: ${PEOPLE_DN}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ${GROUPS_DN}\nobjectClass: organizationalUnit\nou: groups`,
    `dn: ${SERVICE_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: grc-reader\nuserPassword: ${SERVICE_PASSWORD}`,
    ...people.map((p) => [
      `dn: ${personDn(p.uid)}`, 'objectClass: inetOrgPerson', `uid: ${p.uid}`, `cn: ${p.cn}`, `sn: ${p.cn.split(' ').at(-1)}`,
      `mail: ${p.mail}`, `userPassword: ${p.password}`,
    ].join('\n')),
    ...groups.map((g) => [
      `dn: ${groupDn(g.cn)}`, 'objectClass: groupOfNames', `cn: ${g.cn}`,
      // groupOfNames needs at least one member; an empty group holds the root DN, as directories commonly do.
      ...(g.members.length || g.groups?.length
        ? [...g.members.map((uid) => `member: ${personDn(uid)}`), ...(g.groups ?? []).map((cn) => `member: ${groupDn(cn)}`)]
        : [`member: ${ROOT_DN}`]),
    ].join('\n')),
  ];
  return `${blocks.join('\n\n')}\n`;
}

/**
 * Starts slapd with `people` and `groups`. The directory is configured the way a careless one would be for the
 * empty-password test: `allow bind_anon_dn` makes it accept a bind with a DN and no password (an unauthenticated
 * bind, RFC 4513 §5.1.2), so only the service refusing to send one keeps such a sign-in out.
 */
/** A private certificate authority and a certificate it signs for 127.0.0.1 and localhost (openssl). */
function makeCertificates(dir: string): { caFile: string; certFile: string; keyFile: string; caPem: string } {
  const f = (name: string) => join(dir, name);
  const run = (args: string[]) => {
    const result = spawnSync('openssl', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=GRC test directory CA', '-keyout', f('ca.key'), '-out', f('ca.pem')]);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', f('server.key'), '-out', f('server.csr')]);
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', f('server.ext'), '-out', f('server.pem')]);
  return { caFile: f('ca.pem'), certFile: f('server.pem'), keyFile: f('server.key'), caPem: readFileSync(f('ca.pem'), 'utf8') };
}

export async function startSlapd(people: DirectoryPerson[], groups: DirectoryGroup[], options: { tls?: boolean } = {}): Promise<Slapd> {
  const dir = mkdtempSync(join(tmpdir(), 'grc-slapd-'));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const tls = options.tls ? makeCertificates(dir) : null;
  const conf = join(dir, 'slapd.conf');
  const hasMdbModule = existsSync(join(MODULE_DIR, 'back_mdb.so'));
  writeFileSync(conf, [
    `include ${SCHEMA_DIR}/core.schema`,
    `include ${SCHEMA_DIR}/cosine.schema`,
    `include ${SCHEMA_DIR}/inetorgperson.schema`,
    ...(hasMdbModule ? [`modulepath ${MODULE_DIR}`, 'moduleload back_mdb'] : []),
    `pidfile ${join(dir, 'slapd.pid')}`,
    `argsfile ${join(dir, 'slapd.args')}`,
    'allow bind_anon_dn',
    ...(tls ? [`TLSCACertificateFile ${tls.caFile}`, `TLSCertificateFile ${tls.certFile}`, `TLSCertificateKeyFile ${tls.keyFile}`] : []),
    'database mdb',
    'maxsize 10485760',
    `suffix "${BASE_DN}"`,
    `rootdn "${ROOT_DN}"`,
    `rootpw ${ROOT_PASSWORD}`,
    `directory ${dataDir}`,
    'access to attrs=userPassword by anonymous auth by self write by * none',
    `access to * by dn.exact="${SERVICE_DN}" read by self read by * none`,
    '',
  ].join('\n'));
  const ldif = join(dir, 'data.ldif');
  writeFileSync(ldif, entries(people, groups));
  const loaded = spawnSync(SLAPADD, ['-f', conf, '-l', ldif], { encoding: 'utf8' });
  if (loaded.status !== 0) throw new Error(`slapadd failed: ${loaded.stderr}`);

  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsPort = tls ? await freePort() : null;
  const ldapsUrl = ldapsPort ? `ldaps://127.0.0.1:${ldapsPort}` : undefined;
  const listen = [`${url}/`, ...(ldapsUrl ? [`${ldapsUrl}/`] : [])].join(' ');
  // -d 0 keeps slapd in the foreground (so killing this process stops it) without debug output.
  const child: ChildProcess = spawn(SLAPD, ['-h', listen, '-f', conf, '-d', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));
  for (let i = 0; i < 100 && !(await accepting(port)); i += 1) {
    if (exited) throw new Error(`slapd did not start: ${stderr}`);
    await Bun.sleep(50);
  }
  if (!(await accepting(port))) {
    child.kill('SIGKILL');
    throw new Error(`slapd did not listen on ${port}: ${stderr}`);
  }

  return {
    url,
    port,
    ldapsUrl,
    caPem: tls?.caPem,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const killed = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exit;
        clearTimeout(killed);
      }
      rmSync(dir, { recursive: true, force: true });
    },
    async setGroupMembers(cn: string, uids: string[]) {
      const client = new Client({ url, timeout: 5_000, connectTimeout: 5_000 });
      try {
        await client.bind(ROOT_DN, ROOT_PASSWORD);
        const nested = (groups.find((g) => g.cn === cn)?.groups ?? []).map(groupDn);
        const values = uids.length || nested.length ? [...uids.map(personDn), ...nested] : [ROOT_DN];
        await client.modify(groupDn(cn), new Change({ operation: 'replace', modification: new Attribute({ type: 'member', values }) }));
      } finally {
        await client.unbind();
      }
    },
  };
}
