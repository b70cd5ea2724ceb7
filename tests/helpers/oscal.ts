import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** The NIST SP 800-53 rev5 moderate baseline as OSCAL JSON text (tests/fixtures/oscal/README.md). */
export const NIST_OSCAL_FILE_NAME = 'NIST_SP-800-53_rev5_MODERATE-baseline-resolved-profile_catalog-min.json';
export const nistOscalText = (): string =>
  gunzipSync(readFileSync(new URL(`../fixtures/oscal/${NIST_OSCAL_FILE_NAME}.gz`, import.meta.url))).toString('utf8');

/** NIST's OSCAL 1.1.2 catalog JSON Schema (draft-07), compiled with Ajv and the standard formats. */
export function oscalCatalogValidator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(new URL('../fixtures/oscal/oscal_catalog_schema-1.1.2.json', import.meta.url), 'utf8')) as object);
}
