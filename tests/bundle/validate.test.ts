import { afterAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_BUNDLE_BYTES } from '../../scripts/bundle/schema';
import { baseBundle, bundleFile, load, removeTempDirs, tempDir } from './helpers';

/**
 * Specification, "Bundle (input of the bundle loader)": the bundle is validated first; any problem stops the run
 * before anything is read or written, listing up to 50 problems by JSON path, exit status 1.
 * No instance is needed: the address below is never asked (every test checks that no request went out).
 */

const NOWHERE = 'http://127.0.0.1:9';
const TOKEN = 'aat_never-sent';
afterAll(removeTempDirs);

/** Runs the loader on the bundle and expects it refused before any request, with exactly these problem lines. */
async function refused(bundle: unknown, ...lines: string[]) {
  const result = await load([bundleFile(bundle), '--url', NOWHERE], { token: TOKEN });
  expect(result.requests, 'no request may go out').toEqual([]);
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  const listed = result.stderr.split('\n').filter((line) => line.startsWith('  ')).map((line) => line.slice(2));
  expect(listed).toEqual(lines);
  return result;
}

describe('a bundle that is not one', () => {
  test('a file that is not JSON: one line naming it, exit 1', async () => {
    const result = await load([bundleFile('{"format": "grc-bundle", "version": 1,', 'broken.json'), '--url', NOWHERE], { token: TOKEN });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toStartWith('broken.json is not JSON: ');
    expect(result.requests).toEqual([]);
  });

  test('JSON that is not a bundle, the wrong format, the wrong version: one clear line each', async () => {
    const cases: [unknown, string][] = [
      [[1, 2, 3], 'bundle.json is not a bundle: it needs "format": "grc-bundle" and "version": 1 at the top level'],
      [{ controls: [] }, 'bundle.json is not a bundle: it needs "format": "grc-bundle" and "version": 1 at the top level'],
      [{ format: 'grc-export', version: 1 }, 'bundle.json has format "grc-export"; the loader reads "grc-bundle"'],
      [{ format: 'grc-bundle', version: 2 }, 'bundle.json is grc-bundle version 2; this loader reads version 1'],
      [{ format: 'grc-bundle', version: '1' }, 'bundle.json is grc-bundle version "1"; this loader reads version 1'],
    ];
    for (const [bundle, message] of cases) {
      const result = await load([bundleFile(bundle), '--url', NOWHERE], { token: TOKEN });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`${message}\n`);
      expect(result.requests).toEqual([]);
    }
  });

  test(`a bundle over ${MAX_BUNDLE_BYTES / 1024 / 1024} MB is refused by its size before it is read`, async () => {
    const file = join(tempDir(), 'huge.json');
    writeFileSync(file, `{"format":"grc-bundle","version":1,"source":"${'x'.repeat(MAX_BUNDLE_BYTES)}"}`);
    const result = await load([file, '--url', NOWHERE], { token: TOKEN });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('huge.json is 50.0 MB; the loader reads bundles up to 50.0 MB (split it into several bundles)\n');
  });

  test('a file that does not exist', async () => {
    const result = await load([join(tempDir(), 'missing.json'), '--url', NOWHERE], { token: TOKEN });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cannot read .*missing\.json: no such file\n$/);
  });

  test('the shape: unknown fields, wrong types and missing required fields, by JSON path', async () => {
    const bundle = baseBundle();
    bundle.controls[0].colour = 'blue';
    bundle.controls[0].type = 'magic';
    bundle.risks[0].inherentLikelihood = 2.5;
    delete bundle.risks[0].classification;
    await refused(bundle,
      'controls[0].colour: is not a field of the bundle here',
      'controls[0].type: must be one of policy, process, technical, physical, other',
      'risks[0].classification: is required',
      "risks[0].inherentLikelihood: must be a level's value (an integer) or its name");
  });
});

describe('validator rules', () => {
  test('rule 1: each ref is unique within its record type and at most 60 characters', async () => {
    const bundle = baseBundle();
    const long = `C-${'9'.repeat(59)}`;
    bundle.controls.push({ ref: 'C-1', name: 'C-1 Again' }, { ref: long, name: `${long} Long` }, { ref: 'C 2', name: 'C 2 Spaced' });
    // The same ref in another record type is fine.
    bundle.risks[0].ref = 'C-1';
    bundle.risks[0].title = 'C-1 Loss of the ledger';
    bundle.requirements[0].risks = ['C-1'];
    await refused(bundle,
      'controls[1].ref: "C-1" repeats controls[0].ref',
      'controls[2].ref: must be at most 60 characters (it has 61)',
      'controls[3].ref: must be one word: no spaces');
  });

  test('rule 2: a title or name begins with its ref followed by one space', async () => {
    const bundle = baseBundle();
    bundle.controls[0].name = 'Nightly backups';
    bundle.policies[0].title = 'P-1Backup policy';
    bundle.risks[0].title = 'R-1 ';
    bundle.risks.push({ ...bundle.risks[0], ref: 'R-12', title: 'R-1 Data loss' });
    await refused(bundle,
      'controls[0].name: must begin with its ref "C-1 "',
      'policies[0].title: must begin with its ref "P-1 "',
      'risks[0].title: must say something after its ref "R-1"',
      'risks[1].title: must begin with its ref "R-12 "');
  });

  test('rule 3: free text is at most 100,000 characters', async () => {
    const bundle = baseBundle();
    bundle.controls[0].description = 'x'.repeat(100_001);
    bundle.policies[0].content = 'y'.repeat(100_000);
    bundle.risks[0].residualBasis = 'z'.repeat(100_002);
    (bundle as Record<string, unknown>).source = 's'.repeat(100_001);
    await refused(bundle,
      'source: must be at most 100,000 characters (it has 100,001)',
      'controls[0].description: must be at most 100,000 characters (it has 100,001)',
      'risks[0].residualBasis: must be at most 100,000 characters (it has 100,002)');
  });

  test('rule 4: residual likelihood and impact never exceed inherent (the risk\'s and its planned treatment\'s)', async () => {
    const bundle = baseBundle();
    bundle.risks[0].residualLikelihood = 4;
    bundle.risks[0].plannedTreatment = { title: 'Better backups', residualLikelihood: 1, residualImpact: 5 };
    await refused(bundle,
      'risks[0].residualLikelihood: 4 is above the inherent likelihood 3',
      'risks[0].plannedTreatment.residualImpact: 5 is above the inherent impact 4');
  });

  test('rule 5: every risk\'s classification appears in the classifications list', async () => {
    const bundle = baseBundle();
    bundle.risks.push({ ...bundle.risks[0], ref: 'R-2', title: 'R-2 Fraud', classification: 'Financial' });
    // Matched ignoring case and spaces, as the service matches names.
    bundle.risks[0].classification = ' operational ';
    await refused(bundle, 'risks[1].classification: "Financial" is not in classifications');
  });

  test('rule 6: with a riskScale, each risk\'s levels lie on it and a matrix cell exists for every pair of levels', async () => {
    const bundle = baseBundle() as ReturnType<typeof baseBundle> & { riskScale?: unknown };
    bundle.riskScale = {
      likelihood: [{ value: 1, name: 'Low' }, { value: 2, name: 'High' }],
      impact: [{ value: 1, name: 'Low' }, { value: 2, name: 'High' }],
      cells: [{ likelihood: 1, impact: 1, score: 1 }, { likelihood: 2, impact: 2, score: 4 }, { likelihood: 1, impact: 2, score: 2 }],
      bands: [{ name: 'All', minScore: 0, maxScore: 4 }],
    };
    Object.assign(bundle.risks[0], { inherentLikelihood: 'High', inherentImpact: 3, residualLikelihood: 'low', residualImpact: 'Extreme' });
    await refused(bundle,
      'riskScale.cells: no score for likelihood 2 and impact 1',
      'risks[0].inherentImpact: 3 is not an impact level of the bundle\'s riskScale',
      'risks[0].residualImpact: "Extreme" is not an impact level of the bundle\'s riskScale');
  });

  test('rule 7: requirements only with a package, naming its item codes and refs present in the same bundle', async () => {
    const withoutPackage = baseBundle() as Partial<ReturnType<typeof baseBundle>>;
    delete withoutPackage.package;
    await refused(withoutPackage, 'requirements: are allowed only with a package in the same bundle');

    const bundle = baseBundle();
    bundle.requirements.push(
      { code: 'OP-9', controls: ['C-1'] },
      { code: 'H' },
      { code: 'OP-2', controls: ['C-7'], policies: ['P-1', 'P-8'], risks: ['R-9'] },
      { code: 'OP-1', status: 'non_compliant' },
    );
    await refused(bundle,
      'requirements[1].code: "OP-9" is not an item code of the package',
      'requirements[2].code: "H" is a heading; only requirement and additional items have an analysis',
      'requirements[3].controls[0]: "C-7" is not a control of the bundle',
      'requirements[3].policies[1]: "P-8" is not a policy of the bundle',
      'requirements[3].risks[0]: "R-9" is not a risk of the bundle',
      'requirements[4].code: "OP-1" repeats requirements[0].code');
  });

  test('rule 8: policies published from the bundle carry their content; effectiveDate and signatories go together on a published policy', async () => {
    const bundle = baseBundle();
    bundle.policies.push(
      { ref: 'P-2', title: 'P-2 No text', status: 'published' },
      { ref: 'P-3', title: 'P-3 Blank text', status: 'published', content: '  \n' },
      { ref: 'P-4', title: 'P-4 Dated only', status: 'published', content: 'x', effectiveDate: '2026-01-01' },
      { ref: 'P-5', title: 'P-5 Draft signed', content: 'x', effectiveDate: '2026-01-01', signatories: ['Dana Board'] },
      { ref: 'P-6', title: 'P-6 A draft needs no text' },
    );
    await refused(bundle,
      'policies[1].content: a policy published from the bundle carries its content',
      'policies[2].content: a policy published from the bundle carries its content',
      'policies[3].signatories: are needed with effectiveDate',
      'policies[4].status: must be "published": signatories approve a published version');
  });

  test('rule 9: each risk has a residualBasis (it becomes the implemented mitigate treatment carrying the residual rating)', async () => {
    const bundle = baseBundle();
    bundle.risks.push({ ...bundle.risks[0], ref: 'R-2', title: 'R-2 Fraud', residualBasis: '   ' });
    delete bundle.risks[0].residualBasis;
    bundle.risks.push({ ...bundle.risks[1], ref: 'R-3', title: 'R-3 Flood', residualBasis: 'Insured', plannedTreatment: { type: 'transfer', title: 'Insurance', residualLikelihood: 1, residualImpact: 1 } });
    await refused(bundle,
      'risks[0].residualBasis: is required',
      'risks[1].residualBasis: must not be blank: it becomes the implemented mitigate treatment carrying the residual rating',
      'risks[2].plannedTreatment.residualLikelihood: only a mitigate treatment carries a residual rating');
  });

  test('at most 50 problems are listed by JSON path, then "and N more"; the first line counts them all', async () => {
    const bundle = baseBundle();
    bundle.controls = Array.from({ length: 60 }, (_, i) => ({ ref: `C-${i}`, name: `Control ${i}` }));
    const result = await load([bundleFile(bundle), '--url', NOWHERE], { token: TOKEN });
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('bundle.json: 60 problems; nothing was read or written:');
    expect(lines.slice(1, 51)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => `  controls[${i}].name: must begin with its ref "C-${i} "`),
    ]);
    expect(lines.slice(51)).toEqual(['  and 10 more']);
    expect(result.requests).toEqual([]);
  });

  test('with --json the problems are also one JSON object on standard output', async () => {
    const bundle = baseBundle();
    bundle.controls[0].name = 'Backups';
    const result = await load([bundleFile(bundle), '--url', NOWHERE, '--json'], { token: TOKEN });
    expect(result.code).toBe(1);
    expect(result.json).toEqual({
      ok: false, error: 'bundle.json: 1 problem; nothing was read or written:',
      problems: [{ path: 'controls[0].name', message: 'must begin with its ref "C-1 "' }],
    } as never);
  });

  test('the example bundle in docs/examples is valid', async () => {
    const { readBundleFile, validateBundle } = await import('../../scripts/bundle/validate');
    const { SMALL_BUNDLE } = await import('./helpers');
    expect(validateBundle(await readBundleFile(SMALL_BUNDLE))).toEqual([]);
  });
});
