import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseBundle, bundleFile, load, removeTempDirs, startInstance, tempDir, type Instance } from './helpers';

/**
 * `--ca-file <path>` trusts a private certificate authority: the instance here answers over HTTPS with a certificate
 * signed by a CA this test makes with openssl, which no one else trusts.
 */

let instance: Instance;
let https: ReturnType<typeof Bun.serve>;
let dir: string;
let token: string;

function openssl(...args: string[]): void {
  const run = Bun.spawnSync(['openssl', ...args], { cwd: dir, stdout: 'pipe', stderr: 'pipe' });
  if (run.exitCode !== 0) throw new Error(`openssl ${args.join(' ')}: ${run.stderr.toString()}`);
}

/** A certificate authority (ca.pem) and a server certificate it signed for localhost and 127.0.0.1. */
function makeCertificates(prefix: string): void {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${prefix}ca.key`, '-out', `${prefix}ca.pem`, '-days', '2',
    '-subj', `/CN=${prefix}Test CA`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${prefix}server.key`, '-out', `${prefix}server.csr`, '-subj', '/CN=localhost');
  writeFileSync(join(dir, `${prefix}ext.cnf`), [
    'subjectAltName=DNS:localhost,IP:127.0.0.1', 'basicConstraints=CA:FALSE', 'keyUsage=digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth',
  ].join('\n'));
  openssl('x509', '-req', '-in', `${prefix}server.csr`, '-CA', `${prefix}ca.pem`, '-CAkey', `${prefix}ca.key`, '-CAcreateserial',
    '-out', `${prefix}server.pem`, '-days', '2', '-extfile', `${prefix}ext.cnf`);
}

beforeAll(async () => {
  instance = await startInstance();
  token = await instance.token();
  dir = tempDir();
  makeCertificates('');
  makeCertificates('other-');
  https = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    tls: { cert: readFileSync(join(dir, 'server.pem'), 'utf8'), key: readFileSync(join(dir, 'server.key'), 'utf8') },
    fetch: (request) => instance.env.app.handle(request),
  });
});
afterAll(() => {
  https?.stop(true);
  instance?.stop();
  removeTempDirs();
});

describe('--ca-file', () => {
  test('without it, a certificate from a private authority is a TLS error: one line naming --ca-file, exit 1', async () => {
    const url = `https://localhost:${https.port}`;
    const result = await load([bundleFile(baseBundle('tls-')), '--url', url], { token });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines.at(-1)).toStartWith(`TLS error talking to ${url}: `);
    expect(lines.at(-1)).toEndWith('if the instance uses a private certificate authority, pass its certificate with --ca-file');
    expect(result.stdout).toBe('');
  });

  test('with the authority\'s certificate the loader trusts the instance and loads', async () => {
    const url = `https://localhost:${https.port}`;
    const result = await load([bundleFile(baseBundle('tls-')), '--url', url, '--ca-file', join(dir, 'ca.pem'), '--apply', '--json'], { token });
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ ok: true, mode: 'apply', url, counts: { controls: { create: 1 } } });
  });

  test('another authority is not trusted; a file that holds no certificate is refused before any request', async () => {
    const url = `https://localhost:${https.port}`;
    const other = await load([bundleFile(baseBundle('tls-')), '--url', url, '--ca-file', join(dir, 'other-ca.pem')], { token });
    expect(other.code).toBe(1);
    expect(other.stderr.trim().split('\n').at(-1)).toStartWith(`TLS error talking to ${url}: `);
    const notPem = await load([bundleFile(baseBundle('tls-')), '--url', url, '--ca-file', join(dir, 'ext.cnf')], { token });
    expect(notPem.code).toBe(1);
    expect(notPem.stderr).toContain('holds no PEM certificate');
    expect(notPem.requests).toEqual([]);
  });
});
