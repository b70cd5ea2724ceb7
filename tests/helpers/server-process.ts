import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../db/client';
import { createToken } from '../../src/modules/apiTokens/service';
import { loadUserRightsByEmail, userActor } from '../../src/modules/people/rights';
import type { Permission } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from './app';
import { unique } from './factories';

const SERVER = join(import.meta.dir, '../../src/server.ts');

/** A server started as its own process (`bun src/server.ts`), answering on a real socket. */
export interface ServerProcess {
  url: string;
  process: ReturnType<typeof Bun.spawn>;
  /** Everything the process wrote to stderr so far (its structured log). */
  log(): string;
  /** Whether the process is still running. */
  alive(): boolean;
  stop(): Promise<void>;
}

/**
 * Spawns the server with the given environment on a free port and waits until it listens (after its migrations).
 * Its log lines are kept for the test to read.
 */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = Bun.spawn([process.execPath, SERVER], {
    env: { ...process.env, ADMIN_EMAIL, ADMIN_PASSWORD, LOG_LEVEL: 'info', PORT: '0', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let stderr = '';
  let url: string | undefined;
  const listening = new Promise<string>((resolve, reject) => {
    void (async () => {
      const decoder = new TextDecoder();
      const reader = (child.stderr as ReadableStream<Uint8Array>).getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        stderr += decoder.decode(read.value, { stream: true });
        const match = /"message":"listening","url":"(http:\/\/[^"]+)"/.exec(stderr);
        if (match && !url) {
          url = match[1].replace('localhost', '127.0.0.1');
          resolve(url);
        }
      }
      if (!url) reject(new Error(`server exited before listening (exit ${await child.exited}):\n${stderr}`));
    })();
  });
  void new Response(child.stdout).text();
  const started = await listening;
  return {
    url: started,
    process: child,
    log: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await child.exited;
    },
  };
}

/** An API token of the first administrator in the database at `databaseUrl`, made through the token service. */
export async function adminTokenIn(databaseUrl: string, scopes: Permission[]): Promise<string> {
  const database = await openDatabase({ databaseUrl, maxConnections: 1 });
  try {
    const admin = userActor((await loadUserRightsByEmail(database.db, ADMIN_EMAIL))!, 'screen');
    const { secret } = await database.db.transaction((tx) => createToken(tx, admin, { name: unique('process test'), scopes }));
    return secret;
  } finally {
    await database.close();
  }
}

/** A plain connection to the test's database, for checking what was kept. */
export const openTestDatabase = (databaseUrl: string): Promise<Database> => openDatabase({ databaseUrl, maxConnections: 2 });

/**
 * A TCP relay in front of PostgreSQL, so a test can make the database unreachable for a server (every connection cut,
 * new ones refused) and reachable again on the same address, without touching the PostgreSQL server others share.
 */
export interface DatabaseRelay {
  /** The database URL that goes through the relay. */
  url: string;
  /** Cuts every relayed connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startDatabaseRelay(databaseUrl: string): Promise<DatabaseRelay> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const relay = (): Server => createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  let server = relay();
  const port = await listen(server, 0);
  const viaRelay = new URL(databaseUrl);
  viaRelay.hostname = '127.0.0.1';
  viaRelay.port = String(port);
  const stopServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url: viaRelay.toString(),
    async cut() {
      const closing = stopServer();
      for (const socket of sockets) socket.destroy();
      await closing;
    },
    async restore() {
      server = relay();
      await listen(server, port);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await stopServer();
    },
  };
}
