import postgres from 'postgres';

/**
 * With DATABASE_URL the suite runs on that PostgreSQL server, in a fresh database of its own that is dropped
 * afterwards (never in the database the URL names, which may hold real data). Without it, on in-memory PGlite.
 */
export async function createTestDatabaseUrl(): Promise<string | undefined> {
  const base = process.env.DATABASE_URL;
  if (!base) return undefined;
  const name = `grc_test_${process.pid}_${Date.now().toString(36)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  createdDatabases.push({ base, name });
  return url.toString();
}

const createdDatabases: { base: string; name: string }[] = [];

export async function dropTestDatabases(): Promise<void> {
  for (const { base, name } of createdDatabases.splice(0)) {
    const admin = postgres(base, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}
