/**
 * `bun run db:demo [-- --seed <n>] [--size small|large]`: loads demonstration data into a new, empty database
 * (DATABASE_URL, else the embedded one in DATA_DIR), then prints the people's passwords once. docs/demo-data.md.
 * Exit codes: 0 loaded; 1 refused (the database holds records; nothing written) or failed; 2 usage or could not start.
 */
import { parseArgs } from 'node:util';
import { boot } from '../src/app';
import { readConfig } from '../src/config';
import { DemoRefused, loadDemo, type DemoSize } from './demo/load';
import { runCommand } from './cli';

const USAGE = 'Usage: bun run db:demo [-- --seed <integer>] [--size small|large]';

async function main(): Promise<number> {
  let seed = 1;
  let size: DemoSize = 'small';
  try {
    const args = process.argv.slice(2);
    const { values } = parseArgs({ args: args[0] === '--' ? args.slice(1) : args, options: { seed: { type: 'string' }, size: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (values.seed !== undefined) {
      if (!/^\d{1,9}$/.test(values.seed)) throw new Error(`--seed must be a whole number from 0 to 999999999, not "${values.seed}"`);
      seed = Number(values.seed);
    }
    if (values.size !== undefined) {
      if (values.size !== 'small' && values.size !== 'large') throw new Error(`--size must be small or large, not "${values.size}"`);
      size = values.size;
    }
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }

  const ctx = await boot(readConfig());
  try {
    const where = ctx.config.DATABASE_URL ? `PostgreSQL (${new URL(ctx.config.DATABASE_URL).host})` : `the embedded database in ${ctx.config.DATA_DIR}`;
    console.log(`Loading demonstration data (${size}, seed ${seed}) into ${where}.`);
    let result;
    try {
      result = await loadDemo(ctx, { seed, size, progress: process.stderr.isTTY ? (line) => process.stderr.write(`  ${line}\n`) : undefined });
    } catch (error) {
      if (error instanceof DemoRefused) {
        console.error(error.message);
        return 1;
      }
      throw error;
    }
    console.log('');
    console.log('Loaded:');
    for (const [kind, n] of Object.entries(result.counts)) console.log(`  ${kind.padEnd(24)} ${n.toLocaleString('en')}`);
    console.log(`Time: ${result.seconds.toFixed(1)} s`);
    console.log('');
    console.log('People who can sign in (passwords shown once; store them now):');
    if (ctx.generatedAdminPassword) {
      console.log(`  ${'Administrator (first start)'.padEnd(28)} ${ctx.config.ADMIN_EMAIL.padEnd(32)} ${'Administrators'.padEnd(20)} ${ctx.generatedAdminPassword}`);
    }
    for (const person of result.people) {
      console.log(`  ${person.name.padEnd(28)} ${person.email.padEnd(32)} ${person.group.padEnd(20)} ${person.password}`);
    }
    console.log('');
    console.log('This database now holds fictional data: never use it for real records. The only clean path is a new database.');
    return 0;
  } finally {
    await ctx.close();
  }
}

runCommand(main);
