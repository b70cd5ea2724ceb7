/**
 * Writes the bundle's JSON Schema to docs/bundle.schema.json (`bun run bundle:schema`; `-- --check` only compares),
 * so editors can validate bundles. The schema is the loader's own TypeBox schema (scripts/bundle/schema.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleJsonSchema } from './bundle/schema';

export const BUNDLE_SCHEMA_FILE = join(import.meta.dir, '..', 'docs', 'bundle.schema.json');
export const bundleSchemaText = () => `${JSON.stringify(bundleJsonSchema(), null, 2)}\n`;

if (import.meta.main) {
  const check = process.argv.includes('--check');
  const text = bundleSchemaText();
  if (check) {
    let current = '';
    try {
      current = readFileSync(BUNDLE_SCHEMA_FILE, 'utf8');
    } catch {
      current = '';
    }
    if (current !== text) {
      console.error(`${BUNDLE_SCHEMA_FILE} is stale: run bun run bundle:schema`);
      process.exit(1);
    }
    console.log(`${BUNDLE_SCHEMA_FILE} is up to date`);
  } else {
    writeFileSync(BUNDLE_SCHEMA_FILE, text);
    console.log(`wrote ${BUNDLE_SCHEMA_FILE}`);
  }
}
