import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDatabase, ms, timeIt } from './lib';

const BIG_FILE_MB = 200;
const PACKAGE_FILES = 1_000;
const PACKAGE_FILE_KB = 500;
const CONCURRENCY = 8;

/** A process's resident memory (kB), and its peak since the peak was last reset. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Time of `work`, and how far the server's resident memory rose above its level when `work` started (Linux /proc). */
async function withServerPeak<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; ms: number; growthMb: number }> {
  // Writing 5 to clear_refs resets the peak (VmHWM) to the current resident size.
  await Bun.write(`/proc/${pid}/clear_refs`, '5');
  const before = await memoryOf(pid);
  const timed = await timeIt(work);
  const after = await memoryOf(pid);
  return { result: timed.result, ms: timed.ms, growthMb: (after.peak - before.rss) / 1024 };
}

/** Starts the service as a process of its own (bench/evidence-server.ts) and reads its port and token. */
async function startServer(env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, `${import.meta.dir}/evidence-server.ts`], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'inherit' });
  const reader = child.stdout.getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the benchmark server stopped before listening');
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const { port, token } = JSON.parse(text.split('\n')[0]) as { port: number; token: string };
  return { child, port, token };
}

function shell(command: string): Promise<number> {
  return timeIt(async () => {
    const run = Bun.spawn(['sh', '-c', command], { stdout: 'ignore', stderr: 'pipe' });
    if ((await run.exited) !== 0) throw new Error(`${command}: ${await new Response(run.stderr).text()}`);
  }).then((t) => t.ms);
}

/** Deterministic content that differs per file and does not compress to nothing. */
function content(bytes: number, seed: number): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(bytes);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < bytes; i += 1) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    data[i] = x & 0xff;
  }
  return data;
}

/**
 * Evidence over loopback HTTP next to floors measured in the same run: a 200 MB upload against `sha256sum` plus a
 * copy of the file; an auditor package of 1,000 files (500 MB) against `zip -0` over the stored files; Verify files
 * against `sha256sum` over them. The service runs as a process of its own; RSS growth is its peak above where it started.
 */
export async function benchEvidence(): Promise<Record<string, string>> {
  const folder = mkdtempSync(join(tmpdir(), 'grc-bench-evidence-'));
  const database = await benchDatabase('evidence');
  const server = await startServer({
    DATA_DIR: folder, EVIDENCE_MAX_FILE_MB: '512', LOG_LEVEL: 'error', ADMIN_PASSWORD: 'benchmark password', PORT: '0',
    ...(database.url ? { DATABASE_URL: database.url } : { DATABASE_URL: '' }),
  });
  const figures: Record<string, string> = {};
  const base = `http://127.0.0.1:${server.port}/api/v1/evidence`;
  const pid = server.child.pid;
  try {
    const auth = { authorization: `Bearer ${server.token}` };
    const newEvidence = async (title: string) => {
      const res = await fetch(base, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
      return ((await res.json()) as { data: { id: string } }).data.id;
    };

    // 1. One big file.
    const bigPath = join(folder, 'big.bin');
    await Bun.write(bigPath, content(BIG_FILE_MB * 1024 * 1024, 7));
    const floorUpload = await shell(`sha256sum ${bigPath} > /dev/null && cp ${bigPath} ${join(folder, 'big-copy.bin')}`);
    const bigEvidence = await newEvidence('Big file');
    const upload = await withServerPeak(pid, async () => {
      const res = await fetch(`${base}/${bigEvidence}/files?name=big.bin`, { method: 'POST', headers: { ...auth, 'content-type': 'application/octet-stream' }, body: Bun.file(bigPath) });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    });
    rmSync(join(folder, 'big-copy.bin'));
    figures[`${BIG_FILE_MB} MB: sha256sum + cp (floor)`] = ms(floorUpload);
    figures[`${BIG_FILE_MB} MB upload through the API`] = `${ms(upload.ms)} (${(upload.ms / floorUpload).toFixed(2)}x the floor; target within 2x), RSS +${upload.growthMb.toFixed(0)} MB (target < 64)`;

    // 2. An auditor package of many files.
    const ids: string[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < PACKAGE_FILES) {
        const i = next++;
        const id = await newEvidence(`Evidence ${i}`);
        const res = await fetch(`${base}/${id}/files?name=file-${i}.bin`, { method: 'POST', headers: auth, body: content(PACKAGE_FILE_KB * 1024, i + 100) });
        if (res.status !== 201) throw new Error(`upload ${i} answered ${res.status}`);
        ids.push(id);
      }
    }));
    const store = join(folder, 'evidence');
    const bigKey = (await (await fetch(`${base}/${bigEvidence}/files`, { headers: auth })).json() as { data: { id: string }[] }).data[0].id;
    await fetch(`${base}/${bigEvidence}/files/${bigKey}`, { method: 'DELETE', headers: auth });
    const floorZip = await shell(`cd ${store} && zip -0 -q -r ${join(folder, 'floor.zip')} .`);
    rmSync(join(folder, 'floor.zip'));
    // Everything collected today: the 1,000 (the big file's evidence no longer has a file).
    const query = `from=${new Date().toISOString().slice(0, 10)}`;
    const packaged = await withServerPeak(pid, async () => {
      const res = await fetch(`${base}/package?${query}`, { headers: auth });
      if (res.status !== 200) throw new Error(`package answered ${res.status}: ${await res.text()}`);
      const sink = Bun.file(join(folder, 'package.zip')).writer();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) sink.write(chunk);
      await sink.end();
    });
    const totalMb = (PACKAGE_FILES * PACKAGE_FILE_KB) / 1024;
    figures[`package of ${PACKAGE_FILES.toLocaleString('en')} files (${totalMb.toFixed(0)} MB): zip -0 (floor)`] = ms(floorZip);
    figures[`package of ${PACKAGE_FILES.toLocaleString('en')} files through the API`] = `${ms(packaged.ms)} (${(packaged.ms / floorZip).toFixed(2)}x the floor; target within 2x), RSS +${packaged.growthMb.toFixed(0)} MB (target < 64)`;

    // 3. Verify files over the same store.
    const floorHash = await shell(`find ${store} -type f -exec sha256sum {} + > /dev/null`);
    const verify = await timeIt(async () => {
      const started = await fetch(`${base}/verify`, { method: 'POST', headers: auth });
      const run = ((await started.json()) as { data: { id: string } }).data;
      for (;;) {
        await Bun.sleep(20);
        const state = ((await (await fetch(`${base}/verify/${run.id}`, { headers: auth })).json()) as { data: { status: string; problems: unknown[] } }).data;
        if (state.status !== 'running') {
          if (state.problems.length) throw new Error(`Verify files found ${state.problems.length} problems`);
          return;
        }
      }
    });
    figures[`sha256sum over the ${PACKAGE_FILES.toLocaleString('en')} stored files (floor)`] = ms(floorHash);
    figures['Verify files over them'] = `${ms(verify.ms)} (${(verify.ms / floorHash).toFixed(2)}x the floor; target within 1.5x)`;
  } finally {
    server.child.kill();
    await server.child.exited;
    await database.drop();
    rmSync(folder, { recursive: true, force: true });
  }
  return figures;
}
