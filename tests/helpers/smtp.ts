import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A message the test SMTP server accepted, with its headers decoded for assertions. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  body: string;
  /** Whether the session was upgraded with STARTTLS (or began in TLS). */
  secure: boolean;
  user: string | null;
}

export interface TestSmtp {
  port: number;
  received: ReceivedMail[];
  /** Resolves with the first received message matching, or fails after `timeoutMs`. */
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made by openssl in a temporary folder. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'grc-smtp-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}

/** Quoted-printable soft breaks and escapes undone, so the text reads as written. */
const decodeBody = (raw: string) => {
  const [headers, ...rest] = raw.split(/\r?\n\r?\n/);
  const text = rest.join('\n\n');
  const qp = /content-transfer-encoding:\s*quoted-printable/i.test(headers);
  const b64 = /content-transfer-encoding:\s*base64/i.test(headers);
  if (b64) return Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (!qp) return text.replace(/\r\n/g, '\n');
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8').replace(/\r\n/g, '\n');
};

/** The Subject header unfolded, RFC 2047 words (Q or B) decoded. */
function subjectOf(raw: string): string {
  const header = /^Subject:(.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return header.replace(/\r?\n[ \t]+/g, ' ').replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?(.*?)\?=/gi, (_, enc: string, word: string) => (enc.toUpperCase() === 'B'
      ? Buffer.from(word, 'base64').toString('utf8')
      : Buffer.from(word.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8')))
    .trim();
}

/** A real SMTP server on a free local port (smtp-server); options add STARTTLS, authentication or refusals. */
export async function startTestSmtp(options: Partial<SMTPServerOptions> = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: options.key ? [] : ['STARTTLS'],
    logger: false,
    ...options,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: subjectOf(raw),
          body: decodeBody(raw),
          secure: session.secure,
          user: (session.user as string | undefined) ?? null,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    async waitFor(match, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching mail among ${received.length} received: ${received.map((m) => m.subject).join(' | ')}`);
        await Bun.sleep(25);
      }
    },
    close: () => Promise.race([new Promise<void>((resolve) => server.close(() => resolve())), Bun.sleep(3_000)]),
  };
}
