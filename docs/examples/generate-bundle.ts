/**
 * Writes a large, valid grc-bundle for trying the loader and measuring it:
 *
 *   bun docs/examples/generate-bundle.ts --out /tmp/large-bundle.json [--controls 1000] [--policies 1000] [--risks 2000]
 *     [--mappings 1000] [--signatories]
 *
 * The package is the shipped NIST SP 800-53 rev5 moderate baseline (287 requirements); mappings are spread over its
 * requirements, each requirement gets a status. The output depends only on the options (no dates, no randomness),
 * so two runs write the same file and a re-run of the loader finds everything unchanged.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { PackageInput } from '../../src/modules/compliance/schema';
import type { Bundle } from '../../scripts/bundle/schema';

export interface GenerateOptions {
  controls: number;
  policies: number;
  risks: number;
  mappings: number;
  /** Published policies carry effectiveDate and signatories (needs Allow recording outside approvals). */
  signatories: boolean;
}

const NIST = join(import.meta.dir, '../../src/modules/compliance/packages/nist-800-53-rev5-moderate.json');
const STATUSES = ['compliant', 'partially_compliant', 'non_compliant', 'not_applicable', 'not_assessed'] as const;
const CONTROL_TYPES = ['policy', 'process', 'technical', 'physical', 'other'] as const;
const TOPICS = ['access', 'backups', 'change management', 'encryption', 'logging', 'suppliers', 'training', 'incident response', 'physical security', 'vulnerabilities'];
const pad = (n: number, width: number) => String(n).padStart(width, '0');

export function generateBundle(o: GenerateOptions): Bundle {
  const pkg = JSON.parse(readFileSync(NIST, 'utf8')) as PackageInput;
  const requirementCodes = pkg.items.filter((i) => (i.kind || 'requirement') === 'requirement').map((i) => i.code);
  const controlRef = (i: number) => `CTL-${pad(i + 1, 5)}`;
  const policyRef = (i: number) => `POL-${pad(i + 1, 5)}`;
  const riskRef = (i: number) => `RSK-${pad(i + 1, 5)}`;
  const topic = (i: number) => TOPICS[i % TOPICS.length];

  const controls = Array.from({ length: o.controls }, (_, i) => ({
    ref: controlRef(i),
    name: `${controlRef(i)} ${topic(i)} control ${i + 1}`,
    description: `Control ${i + 1} covers ${topic(i)}. It is operated by the ${topic(i + 3)} team and evidenced monthly.`,
    type: CONTROL_TYPES[i % CONTROL_TYPES.length],
    ...(i % 4 === 0 ? { testFrequencyMonths: 3 } : {}),
  }));
  const policies = Array.from({ length: o.policies }, (_, i) => {
    const published = i % 5 !== 4;
    return {
      ref: policyRef(i),
      title: `${policyRef(i)} ${topic(i)} policy ${i + 1}`,
      description: `Policy ${i + 1} on ${topic(i)}.`,
      status: published ? 'published' as const : 'draft' as const,
      content: `# ${topic(i)} policy ${i + 1}\n\n## Purpose\n\nThis policy sets the rules for ${topic(i)}.\n\n## Rules\n\n`
        + Array.from({ length: 8 }, (__, k) => `${k + 1}. Rule ${k + 1} on ${topic(i + k)}: it is followed, recorded and reviewed every year.`).join('\n')
        + '\n\n## Exceptions\n\nExceptions are requested in the service and decided by the policy owner.\n',
      ...(published && o.signatories && i % 10 === 0 ? { effectiveDate: '2026-01-01', signatories: ['Dana Board', 'Sam Chief'] } : {}),
    };
  });
  const risks = Array.from({ length: o.risks }, (_, i) => {
    const inherentLikelihood = (i % 5) + 1;
    const inherentImpact = ((i * 3) % 5) + 1;
    const residualLikelihood = Math.max(1, inherentLikelihood - (i % 3));
    const residualImpact = Math.max(1, inherentImpact - (i % 2));
    const linked = o.controls ? [controlRef(i % o.controls), ...(i % 3 === 0 && o.controls > 1 ? [controlRef((i + 1) % o.controls)] : [])] : [];
    return {
      ref: riskRef(i),
      title: `${riskRef(i)} ${topic(i)} risk ${i + 1}`,
      description: `Risk ${i + 1}: a failure in ${topic(i)} harms customers or operations.`,
      classification: i % 2 === 0 ? 'Information security' : 'Operational',
      inherentLikelihood, inherentImpact, residualLikelihood, residualImpact,
      residualBasis: `The residual rating rests on the ${topic(i)} controls in place.`,
      ...(linked.length ? { controls: [...new Set(linked)] } : {}),
      ...(i % 2 === 0 ? {
        plannedTreatment: {
          title: `Improve ${topic(i)} for risk ${i + 1}`,
          dueOn: `2027-${pad((i % 12) + 1, 2)}-15`,
          residualLikelihood: 1,
          residualImpact: Math.min(residualImpact, 2),
        },
      } : {}),
    };
  });

  // Mappings spread over the requirements, in turn a control, a policy and a risk; each requirement gets a status.
  const requirements = requirementCodes.map((code, k) => ({
    code, status: STATUSES[k % STATUSES.length] as (typeof STATUSES)[number],
    controls: [] as string[], policies: [] as string[], risks: [] as string[],
  }));
  const pools = [['controls', o.controls, controlRef], ['policies', o.policies, policyRef], ['risks', o.risks, riskRef]] as const;
  const available = pools.filter(([, n]) => n > 0);
  for (let m = 0; m < o.mappings && available.length; m++) {
    const requirement = requirements[m % requirements.length];
    const [section, n, ref] = available[m % available.length];
    const target = ref(Math.floor(m / available.length) % n);
    if (!requirement[section].includes(target)) requirement[section].push(target);
  }
  return {
    format: 'grc-bundle',
    version: 1,
    source: `Generated by docs/examples/generate-bundle.ts (${o.controls} controls, ${o.policies} policies, ${o.risks} risks, ${o.mappings} mappings)`,
    package: pkg,
    classifications: [{ name: 'Information security' }, { name: 'Operational' }],
    controls,
    policies,
    risks,
    requirements: requirements.map(({ controls: c, policies: p, risks: r, ...rest }) => ({
      ...rest, ...(c.length ? { controls: c } : {}), ...(p.length ? { policies: p } : {}), ...(r.length ? { risks: r } : {}),
    })),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      controls: { type: 'string', default: '1000' },
      policies: { type: 'string', default: '1000' },
      risks: { type: 'string', default: '2000' },
      mappings: { type: 'string', default: '1000' },
      signatories: { type: 'boolean', default: false },
    },
  });
  if (!values.out) {
    console.error('usage: bun docs/examples/generate-bundle.ts --out <file> [--controls n] [--policies n] [--risks n] [--mappings n] [--signatories]');
    process.exit(2);
  }
  const bundle = generateBundle({
    controls: Number(values.controls), policies: Number(values.policies), risks: Number(values.risks), mappings: Number(values.mappings),
    signatories: values.signatories,
  });
  writeFileSync(values.out, JSON.stringify(bundle));
  console.log(`wrote ${values.out}`);
}
