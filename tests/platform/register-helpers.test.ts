import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';

/**
 * A new register's migration makes its table counted and searchable with one call each (db/migrations/0031), the same
 * triggers and columns the first registers got by hand (0018, 0026): docs/adding-a-module.md.
 */

let env: TestEnv;
const table = `scratch_register_${crypto.randomUUID().slice(0, 8)}`;
const raw = <T = Record<string, unknown>>(text: string) => env.ctx.database.raw<T>(text);

beforeAll(async () => {
  env = await testEnv();
  await raw(`create table ${table} (id uuid primary key default gen_random_uuid(), title text not null, description text not null default '')`);
  await raw(`insert into ${table} (title) values ('Seeded before the triggers')`);
});
afterAll(async () => {
  await raw(`drop table if exists ${table}`);
  await raw(`delete from row_counts where table_name = '${table}'`);
});

const counted = async () => Number((await raw<{ total: string | null }>(`select sum(delta)::text as total from row_counts where table_name = '${table}'`))[0].total ?? 0);

describe('register helpers for migrations', () => {
  test('grc_count_rows counts the rows already there, then every insert and delete; calling it twice changes nothing', async () => {
    await raw(`select grc_count_rows('${table}')`);
    await raw(`select grc_count_rows('${table}')`);
    expect(await counted()).toBe(1);
    await raw(`insert into ${table} (title) values ('Two'), ('Three')`);
    await raw(`delete from ${table} where title = 'Two'`);
    expect(await counted()).toBe(2);
    const triggers = await raw<{ tgname: string }>(`select tgname from pg_trigger where tgrelid = '${table}'::regclass order by tgname`);
    expect(triggers.map((t) => t.tgname)).toEqual([`${table}_count_deletes`, `${table}_count_inserts`, `${table}_count_truncate`]);
  });

  test('grc_make_searchable adds the weighted search vector and the title trigram index the search reads', async () => {
    await raw(`select grc_make_searchable('${table}', 'title', 'description')`);
    await raw(`insert into ${table} (title, description) values ('Vendor offboarding', 'Revoke access of departing suppliers')`);
    const [hit] = await raw<{ title: string }>(`select title from ${table} where search_vector @@ websearch_to_tsquery('english', 'suppliers')`);
    expect(hit.title).toBe('Vendor offboarding');
    const [weights] = await raw<{ vector: string }>(`select search_vector::text as vector from ${table} where title = 'Vendor offboarding'`);
    expect(weights.vector).toContain("'vendor':1A");
    expect(weights.vector).toContain("'supplier':");
    const indexes = await raw<{ indexname: string }>(`select indexname from pg_indexes where tablename = '${table}' order by indexname`);
    expect(indexes.map((i) => i.indexname)).toEqual(expect.arrayContaining([`${table}_search_idx`, `${table}_title_trgm_idx`]));
  });

  test('a table without a text column is searchable by its title alone', async () => {
    const bare = `${table}_bare`;
    await raw(`create table ${bare} (id uuid primary key default gen_random_uuid(), name text not null)`);
    try {
      await raw(`select grc_make_searchable('${bare}', 'name', null)`);
      await raw(`insert into ${bare} (name) values ('ISO 27001 surveillance audit')`);
      const [hit] = await raw<{ name: string }>(`select name from ${bare} where search_vector @@ websearch_to_tsquery('english', 'surveillance')`);
      expect(hit.name).toBe('ISO 27001 surveillance audit');
    } finally {
      await raw(`drop table ${bare}`);
    }
  });
});
