/**
 * Demonstration data: fictional people who can sign in and records in every module, written through the modules'
 * services (so every write has its Audit Log and History entries, as any other write). Used by `bun run db:demo`
 * (scripts/demo-data.ts), its tests (tests/demo/) and the benchmark (bench/demo-data.ts). docs/demo-data.md.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../db/client';
import { awarenessResults, complianceAnalyses, complianceItems, groups, riskClassifications, roles } from '../../db/schema';
import { addContact, addSubProcessor, linkRisk, thirdPartyKind } from '../../src/modules/thirdParties/service';
import { assetKind } from '../../src/modules/assets/service';
import { auditPlanKind, findingKind } from '../../src/modules/audits/service';
import { businessUnitKind } from '../../src/modules/businessUnits/service';
import { controlKind, recordControlTest } from '../../src/modules/controls/service';
import { updateAnalysis, linkRecords } from '../../src/modules/compliance/analyses-service';
import { importShippedPackage } from '../../src/modules/compliance/shipped';
import { createCustomField } from '../../src/modules/customFields/service';
import { evidenceKind, linkEvidenceBatch } from '../../src/modules/evidence/service';
import { recordStoredFiles, storeFile, type StoredBytes } from '../../src/modules/evidence/files';
import { createException, decideException } from '../../src/modules/exceptions/service';
import { policyParent, riskParent } from '../../src/modules/exceptions/parents';
import { addBreachNotification, createIncidentClassification, incidentKind, putBreach } from '../../src/modules/incidents/service';
import { createLabel } from '../../src/modules/labels/service';
import { addGroupMember, assignRoleToGroup, createGroup, createRole, createUser } from '../../src/modules/people/service';
import { loadUserRights, userActor } from '../../src/modules/people/rights';
import { policyKind, publishPolicies, recordPolicyReview, setPolicyContent } from '../../src/modules/policies/service';
import { projectKind } from '../../src/modules/projects/service';
import { addItem, decideItem, programKind } from '../../src/modules/accountReviews/service';
import { riskKind } from '../../src/modules/risks/service';
import { createTreatments, recordRiskReview, type TreatmentBatchItem } from '../../src/modules/risks/treatments-service';
import { programKind as awarenessProgramKind, publishProgram, startTraining, submitAttempt } from '../../src/modules/awareness/service';
import { processingActivityKind } from '../../src/modules/dataPrivacy/service';
import { dpiaKind, signOffDpia } from '../../src/modules/dataPrivacy/dpia-service';
import { createRule } from '../../src/platform/notifications/rules';
import { createSchedule } from '../../src/platform/notifications/report-schedules';
import { saveBranding } from '../../src/platform/branding/branding';
import type { Booted } from '../../src/platform/modules/bootstrap';
import { countedTables } from '../../src/platform/http/installed';
import { ADMINISTRATORS_GROUP } from '../../src/platform/modules/reference-data';
import { ALL_PERMISSIONS, systemActor, type Actor, type Permission } from '../../src/platform/permissions/permissions';
import { createRecords, loadOwnerLookup, updateRecords, type BatchOutcome } from '../../src/platform/records/records';
import type { BatchResult } from '../../src/platform/records/batch';
import {
  ASSETS, BUSINESS_UNITS, CONTROLS, DEMO_DOMAIN, DEMO_ORGANISATION, GROUPS, INCIDENT_CLASSIFICATIONS, LABELS, MADE_ROLES, PEOPLE, POLICIES, PROJECTS, RISKS, SITES,
  THIRD_PARTIES,
} from './content';

export type DemoSize = 'small' | 'large';

/** How many of the bulk records each size loads (the rest of the data is the same for both). */
export const SIZES: Record<DemoSize, { controls: number; risks: number; evidence: number }> = {
  small: { controls: CONTROLS.length, risks: RISKS.length, evidence: 12 },
  large: { controls: 5_000, risks: 10_000, evidence: 2_000 },
};

export interface DemoOptions {
  seed: number;
  size: DemoSize;
  /** Overrides the size's counts (tests load a scaled-down "large" run through the same batch paths). */
  counts?: Partial<(typeof SIZES)[DemoSize]>;
  /** Progress lines; silent when left out. */
  progress?: (line: string) => void;
}

export interface DemoPerson {
  name: string;
  email: string;
  group: string;
  /** Generated here and returned once; only its hash is stored. */
  password: string;
}

export interface DemoResult {
  people: DemoPerson[];
  counts: Record<string, number>;
  seconds: number;
}

/** Thrown when the database already holds records: nothing has been written. */
export class DemoRefused extends Error {}

/* ---------- Refusal ---------- */

/** Tables whose rows are records someone made; reference data (scale, classifications, built-in roles) is not here. */
const RECORD_TABLES = [
  'exceptions', 'labels', 'custom_field_definitions', 'notification_rules', 'incident_classifications', 'api_tokens', 'scim_tokens',
  'control_tests', 'evidence_files',
];

/**
 * What the database holds besides a fresh install (the first administrator, the built-in groups and roles, the
 * reference data): table → rows, only tables with rows. Empty means demo data may be loaded.
 */
export async function existingRecords(db: DbOrTx): Promise<Record<string, number>> {
  const tables = [...new Set([...countedTables(), ...RECORD_TABLES])].sort();
  const parts = tables.map((table) => `select '${table}' as name, count(*)::int as rows from "${table}"`);
  parts.push(`select 'users' as name, greatest(count(*)::int - 1, 0) as rows from users`);
  parts.push(`select 'groups' as name, count(*)::int as rows from groups where name <> '${ADMINISTRATORS_GROUP}'`);
  parts.push(`select 'roles' as name, count(*)::int as rows from roles where not built_in`);
  const rows = await selectRows<{ name: string; rows: number }>(db, sql.raw(parts.join(' union all ')));
  return Object.fromEntries(rows.filter((r) => r.rows > 0).map((r) => [r.name, r.rows]));
}

export function refusalMessage(found: Record<string, number>, demoLoaded: boolean): string {
  const listed = Object.entries(found).map(([table, rows]) => `${table.replace(/_/g, ' ')}: ${rows}`).join(', ');
  return [
    demoLoaded
      ? 'Refused: demonstration data is already loaded in this database; nothing was written.'
      : 'Refused: this database already holds records; nothing was written.',
    `  Found ${listed}.`,
    '  Demonstration data loads only into a new, empty database, and cannot be removed afterwards: the only clean path',
    '  is a new database. Never load it on an instance that will hold real data.',
  ].join('\n');
}

/* ---------- Seeded choices ---------- */

/** mulberry32: small, fast and repeatable; the same seed gives the same records. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const daysFrom = (today: Date, days: number) => isoDay(new Date(today.getTime() + days * 86_400_000));

/** The ids of a batch's outcomes; any refusal is a bug in this data, reported with its reasons. */
function idsOf(what: string, outcomes: (BatchOutcome | BatchResult)[]): string[] {
  return outcomes.map((outcome, index) => {
    if ('id' in outcome && outcome.id) return outcome.id;
    const problems = 'problems' in outcome ? outcome.problems : [];
    throw new Error(`demo ${what} ${index} refused: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
  });
}

const CHUNK = 500;
const chunks = <T>(items: readonly T[], size = CHUNK): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/* ---------- Loading ---------- */

/**
 * Loads the demonstration data into an empty database; throws DemoRefused (nothing written) otherwise. Every write
 * goes through a module service, batched where the module has a batch path. Rule mails stay off: notification rules
 * are made last and disabled, and a rule's mail starts with the changes after it.
 */
export async function loadDemo(ctx: Booted, options: DemoOptions): Promise<DemoResult> {
  const started = performance.now();
  const report = options.progress ?? (() => {});
  const say = (line: string) => report(`${line} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  const db = ctx.db;
  const rnd = random(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)];
  const sizes = { ...SIZES[options.size], ...options.counts };
  const today = new Date();
  const counts: Record<string, number> = {};
  const count = (kind: string, n: number) => (counts[kind] = (counts[kind] ?? 0) + n);
  // History over the past twelve months: the loader (the system actor) records each step at a time in the past, and
  // never earlier than its previous write, so the Audit Log's times ascend. The last steps are the people's, today.
  let lastWrite = 0;
  const past = (daysAgo: number): Actor => {
    lastWrite = Math.max(lastWrite, today.getTime() - daysAgo * 86_400_000);
    return { ...systemActor('loader'), source: 'demonstration data', writtenAt: new Date(lastWrite) };
  };
  /** The day of the `i`th of `n` steps spread from `from` to `to` days ago. */
  const between = (from: number, to: number, i: number, n: number) => from - ((from - to) * i) / Math.max(n - 1, 1);

  // People first, in the transaction that checks emptiness (two loaders at once: the second finds the first's users).
  const people: DemoPerson[] = [];
  const userIds = new Map<string, string>();
  const groupIds = new Map<string, string>();
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7231031)`);
    const found = await existingRecords(tx);
    if (Object.keys(found).length) {
      const [{ demo }] = await selectRows<{ demo: number }>(tx, sql`select count(*)::int as demo from users where email like ${`%@${DEMO_DOMAIN}`}`);
      throw new DemoRefused(refusalMessage(found, demo > 0));
    }
    const system = past(365);
    const roleId = new Map((await tx.select({ id: roles.id, name: roles.name }).from(roles)).map((r) => [r.name, r.id]));
    for (const role of MADE_ROLES) {
      const permissions = ALL_PERMISSIONS.filter((p) => role.modules.includes(p.split(':')[0]) || (p.endsWith(':read') && !/^(settings|apiTokens):/.test(p)));
      const { id } = await createRole(tx, system, {
        name: role.name, description: role.description, permissions: permissions.map((permission: Permission) => ({ permission, level: 'all' as const })),
      });
      roleId.set(role.name, id);
    }
    const [admins] = await tx.select({ id: groups.id }).from(groups).where(eq(groups.name, ADMINISTRATORS_GROUP));
    groupIds.set(ADMINISTRATORS_GROUP, admins.id);
    for (const group of GROUPS) {
      const { id } = await createGroup(tx, system, { name: group.name, description: group.description });
      await assignRoleToGroup(tx, system, id, roleId.get(group.role)!);
      groupIds.set(group.name, id);
    }
    for (const person of PEOPLE) {
      const email = `${person.local}@${DEMO_DOMAIN}`;
      const password = randomBytes(18).toString('base64url');
      const { id } = await createUser(tx, system, { email, name: person.name, password });
      await addGroupMember(tx, system, groupIds.get(person.group)!, id);
      userIds.set(person.local, id);
      people.push({ name: person.name, email, group: person.group, password });
    }
    count('people', PEOPLE.length);
    count('groups', GROUPS.length);
  });
  say('people and groups');

  const actorOf = async (local: string): Promise<Actor> => userActor((await loadUserRights(db, userIds.get(local)!))!, 'cli');
  const admin = await actorOf('avery.lindqvist');
  const riskLead = await actorOf('priya.raman');
  const secOps = await actorOf('tomasz.wojcik');
  const compliance = await actorOf('grace.okafor');
  const auditor = await actorOf('mateo.alvarez');
  const [riskOffice, securityOps, complianceOffice] = ['Risk Office', 'Security Operations', 'Compliance Office'].map((g) => groupIds.get(g)!);

  // Branding first: the organisation's name and colour frame every screen, printed report and mail that follows.
  await db.transaction((tx) => saveBranding(ctx, tx, past(364), { name: DEMO_ORGANISATION, accentColour: '#1d4f91' }));
  count('branding', 1);

  // Supporting lists: business units (parents first), labels, custom fields, incident classifications.
  const unitIds = new Map<string, string>();
  const assetIds = new Map<string, string>();
  await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    const writer = past(362);
    const parents = idsOf('business unit', await createRecords(tx, businessUnitKind, writer, BUSINESS_UNITS.map((u) => ({ name: u.name, description: u.description, ownerId: admin.userId })), { owners }));
    BUSINESS_UNITS.forEach((u, i) => unitIds.set(u.name, parents[i]));
    const children = BUSINESS_UNITS.flatMap((u) => u.children.map((name) => ({ name, description: `${name} (part of ${u.name}).`, parentId: unitIds.get(u.name)!, ownerId: admin.userId })));
    idsOf('business unit', await createRecords(tx, businessUnitKind, writer, children, { owners })).forEach((id, i) => unitIds.set(children[i].name, id));
    const assets = ASSETS.map((a) => ({ name: a.name, description: a.description, businessUnitId: unitIds.get(a.unit)!, ownerId: admin.userId }));
    idsOf('asset', await createRecords(tx, assetKind, writer, assets, { owners })).forEach((id, i) => assetIds.set(assets[i].name, id));
    for (const [name, color, description] of LABELS) await createLabel(tx, writer, { name, color, description });
    await createCustomField(tx, writer, { module: 'risks', key: 'riskAppetite', label: 'Within appetite', type: 'singleSelect', options: ['Yes', 'No', 'Under review'] });
    await createCustomField(tx, writer, { module: 'controls', key: 'automated', label: 'Automated', type: 'boolean' });
    for (const [name, description] of INCIDENT_CLASSIFICATIONS) await createIncidentClassification(tx, writer, { name, description });
  });
  count('business units', unitIds.size);
  count('assets', assetIds.size);
  count('labels', LABELS.length);
  count('custom fields', 2);
  say('business units, assets, labels, custom fields');

  // Controls: the catalogue, then (large) one per site and catalogue entry until the count is reached.
  const controlInputs = Array.from({ length: sizes.controls }, (_, i) => {
    const [ref, name, type, description, months] = CONTROLS[i % CONTROLS.length];
    const round = Math.floor(i / CONTROLS.length);
    const site = round === 0 ? '' : ` (${SITES[(round - 1) % SITES.length]}${round > SITES.length ? ` ${Math.ceil(round / SITES.length)}` : ''})`;
    return {
      name: `${ref}${round ? `.${round}` : ''} ${name}${site}`, description, type, testFrequencyMonths: months,
      status: (round === 0 && rnd() < 0.1 ? 'planned' : 'active') as 'planned' | 'active',
      ownerId: null, ownerGroupId: securityOps,
      customFields: { automated: type === 'technical' },
    };
  });
  const controlIds: string[] = [];
  const controlSlices = chunks(controlInputs, Math.ceil(controlInputs.length / 3));
  for (const [s, slice] of controlSlices.entries()) {
    const writer = past(between(360, 340, s, controlSlices.length));
    for (const batch of chunks(chunks(slice), 4)) {
      await db.transaction(async (tx) => {
        const owners = await loadOwnerLookup(tx);
        for (const chunk of batch) controlIds.push(...idsOf('control', await createRecords(tx, controlKind, writer, chunk, { owners })));
      });
    }
  }
  const controlByRef = new Map(CONTROLS.map(([ref], i) => [ref, controlIds[i]]));
  count('controls', controlIds.length);
  say(`${controlIds.length} controls`);

  // Control tests for the catalogue controls.
  await db.transaction(async (tx) => {
    for (const [i, [, , , , months]] of CONTROLS.entries()) {
      if (i >= controlIds.length || months === null || i % 3 === 2) continue;
      const result = pick(['pass', 'pass', 'pass', 'partial', 'fail'] as const);
      await recordControlTest(tx, past(between(335, 305, i, CONTROLS.length)), controlIds[i], { testerId: secOps.userId!, testedOn: daysFrom(today, -Math.floor(rnd() * 300) - 5), result, notes: result === 'pass' ? 'Sample of 25 checked, no exceptions.' : 'Exceptions found; see the finding.' });
      count('control tests', 1);
    }
  });

  // Risks: the register, then (large) variants per site.
  const classRows = await db.select({ id: riskClassifications.id, name: riskClassifications.name }).from(riskClassifications);
  const classification = new Map(classRows.map((c) => [c.name, c.id]));
  const riskInputs = Array.from({ length: sizes.risks }, (_, i) => {
    const [title, description, cls, il, ii, rl, ri, , asset] = RISKS[i % RISKS.length];
    const round = Math.floor(i / RISKS.length);
    const site = round === 0 ? '' : ` at ${SITES[(round - 1) % SITES.length]}${round > SITES.length ? ` #${Math.ceil(round / SITES.length)}` : ''}`;
    return {
      title: `R-${i + 1} ${title}${site}`, description, classificationId: classification.get(cls)!,
      inherentLikelihood: il, inherentImpact: ii, residualLikelihood: rl, residualImpact: ri,
      status: (round === 0 && i === RISKS.length - 1 ? 'closed' : 'open') as 'open' | 'closed',
      reviewFrequencyMonths: pick([6, 12, 12, 12]),
      ownerId: pick([userIds.get('priya.raman')!, userIds.get('tomasz.wojcik')!, null]), ownerGroupId: riskOffice,
      assetId: asset ? assetIds.get(asset)! : null,
      customFields: { riskAppetite: rl * ri <= 6 ? 'Yes' : pick(['No', 'Under review']) },
    };
  });
  const riskIds: string[] = [];
  // Ten slices over the months, so the register grows as a real one does.
  const riskSlices = chunks(riskInputs, Math.ceil(riskInputs.length / 10));
  for (const [s, slice] of riskSlices.entries()) {
    const writer = past(between(300, 205, s, riskSlices.length));
    for (const batch of chunks(chunks(slice), 4)) {
      await db.transaction(async (tx) => {
        const owners = await loadOwnerLookup(tx);
        for (const chunk of batch) riskIds.push(...idsOf('risk', await createRecords(tx, riskKind, writer, chunk, { owners })));
      });
    }
  }
  count('risks', riskIds.length);
  say(`${riskIds.length} risks`);

  // Treatments: each catalogue risk's mitigation linked to its controls; generated risks link the site's copies.
  const treatments = riskIds.flatMap((riskId, i): TreatmentBatchItem[] => {
    const [title, , , , , rl, ri, refs] = RISKS[i % RISKS.length];
    if (refs.length === 0) return [{ riskId, type: 'accept' as const, status: 'implemented' as const, title: 'Accepted by the risk owner', description: `Accepted: ${title.toLowerCase()} stays within appetite.` }];
    const round = Math.floor(i / RISKS.length);
    const ids = refs.map((ref) => {
      const at = CONTROLS.findIndex(([r]) => r === ref) + ((round * CONTROLS.length) % Math.max(controlIds.length, 1));
      return controlIds[at < controlIds.length ? at : CONTROLS.findIndex(([r]) => r === ref)] ?? controlByRef.get(ref)!;
    }).filter(Boolean);
    const items: TreatmentBatchItem[] = [{
      riskId, type: 'mitigate', status: 'implemented', title: 'Existing controls', residualLikelihood: rl, residualImpact: ri,
      description: 'The controls in place, which give the residual rating.', controlIds: [...new Set(ids)],
    }];
    if (rnd() < 0.4) {
      items.push({
        riskId, type: 'mitigate', status: 'planned', title: 'Further reduction', residualLikelihood: Math.max(1, rl - 1), residualImpact: ri,
        description: 'Planned improvement agreed at the last risk review.', controlIds: [...new Set(ids)].slice(0, 1),
        dueOn: daysFrom(today, 30 + Math.floor(rnd() * 150)),
      });
    }
    return items;
  });
  const treating = past(203);
  for (const batch of chunks(chunks(treatments), 4)) {
    await db.transaction(async (tx) => {
      for (const chunk of batch) idsOf('treatment', await createTreatments(tx, treating, chunk));
    });
  }
  count('treatments', treatments.length);
  say(`${treatments.length} treatments`);

  // Risk reviews for the register's risks.
  await db.transaction(async (tx) => {
    const reviewed = riskIds.slice(0, Math.min(riskIds.length, RISKS.length));
    for (const [i, riskId] of reviewed.entries()) {
      await recordRiskReview(tx, past(between(200, 192, i, reviewed.length)), riskId, { reviewerId: riskLead.userId!, reviewedOn: daysFrom(today, -Math.floor(rnd() * 330) - 10), outcome: pick(['no_change', 'no_change', 'changed'] as const), notes: 'Reviewed with the risk owner at the quarterly risk committee.' });
      count('risk reviews', 1);
    }
  });

  // Policies: drafts with content, most published, with reviews.
  const policyIds: string[] = [];
  await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    const writer = past(190);
    policyIds.push(...idsOf('policy', await createRecords(tx, policyKind, writer, POLICIES.map(([title, description]) => ({ title, description, reviewFrequencyMonths: 12, ownerGroupId: complianceOffice })), { owners })));
    for (const [i, [title, , content]] of POLICIES.entries()) await setPolicyContent(tx, writer, policyIds[i], { content: `# ${title}\n\n${content}\n` });
    const published = policyIds.filter((_, i) => POLICIES[i][3]);
    idsOf('publication', await publishPolicies(tx, writer, published));
    for (const id of published) {
      await recordPolicyReview(tx, writer, id, { reviewerId: userIds.get('grace.okafor')!, reviewedOn: daysFrom(today, -Math.floor(rnd() * 200) - 1), outcome: pick(['no_changes', 'no_changes', 'changes_required'] as const), notes: 'Annual review by the policy owner.' });
      count('policy reviews', 1);
    }
  });
  count('policies', policyIds.length);
  say('policies');

  // Third parties with contacts, linked risks and a sub-processor.
  const thirdPartyIds: string[] = [];
  await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    const writer = past(186);
    thirdPartyIds.push(...idsOf('third party', await createRecords(tx, thirdPartyKind, writer, THIRD_PARTIES.map(([name, type, description, website]) => ({ name, type, description, website, ownerGroupId: complianceOffice })), { owners })));
    for (const [i, [name, , , website, contact, role]] of THIRD_PARTIES.entries()) {
      const local = contact.toLowerCase().replace(/[^a-z]+/g, '.');
      await addContact(tx, writer, thirdPartyIds[i], { name: contact, role, email: `${local}@${new URL(website).hostname}`, phone: `+31 10 555 ${String(1000 + i * 37).padStart(4, '0')}` });
      count('third-party contacts', 1);
      if (i === 0) await addContact(tx, writer, thirdPartyIds[i], { name: 'Security desk', role: `Security contact at ${name}`, email: `security@${new URL(website).hostname}` });
    }
    await linkRisk(tx, writer, thirdPartyIds[0], { riskId: riskIds[4] });
    await linkRisk(tx, writer, thirdPartyIds[1], { riskId: riskIds[11] });
    await linkRisk(tx, writer, thirdPartyIds[2], { riskId: riskIds[10] });
    await addSubProcessor(tx, writer, thirdPartyIds[0], { thirdPartyId: thirdPartyIds[3] });
  });
  count('third parties', thirdPartyIds.length);
  say('third parties');

  // Projects.
  const projectIds: string[] = [];
  await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    projectIds.push(...idsOf('project', await createRecords(tx, projectKind, past(183), PROJECTS.map(([title, description, status, days]) => ({ title, description, status, deadline: daysFrom(today, days), ownerId: userIds.get('tomasz.wojcik')! })), { owners })));
  });
  count('projects', projectIds.length);

  // Compliance: both shipped packages, analyses partly assessed, mapped to controls, policies, risks and projects.
  const packages = new Map<string, string>();
  await db.transaction(async (tx) => {
    for (const key of ['nist-800-53-rev5-moderate', 'gdpr']) packages.set(key, (await importShippedPackage(tx, past(180), key)).id);
  });
  count('compliance packages', packages.size);
  let assessed = 0;
  let mapped = 0;
  const gdprPolicies = [policyIds[3], policyIds[4], policyIds[5]];
  // Assessments spread from 178 to 22 days ago across both packages, so the posture improves over the months.
  let assessing = 0;
  const assessments = await selectRows<{ n: number }>(db, sql`select count(*)::int as n from ${complianceAnalyses} a join ${complianceItems} i on i.id = a.item_id where i.kind = 'requirement'`);
  for (const [key, packageId] of packages) {
    const analyses = await db.select({ id: complianceAnalyses.id, code: complianceItems.code, name: complianceItems.name })
      .from(complianceAnalyses).innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId))
      .where(and(eq(complianceAnalyses.packageId, packageId), inArray(complianceItems.kind, ['requirement'])))
      .orderBy(complianceItems.position);
    const mappings: { analysisId: string; kind: 'controls' | 'policies' | 'risks' | 'projects'; id: string }[] = [];
    await db.transaction(async (tx) => {
      for (const [i, analysis] of analyses.entries()) {
        // NIST codes name their control family (AC-2(1) → AC-2); GDPR requirements take the privacy controls.
        const base = analysis.code.replace(/\(.*$/, '').trim().toUpperCase();
        const control = key === 'gdpr' ? controlByRef.get(`PR-${(i % 5) + 1}`) : controlByRef.get(base);
        if (control) mappings.push({ analysisId: analysis.id, kind: 'controls', id: control });
        if (key === 'gdpr' && i % 3 === 0) mappings.push({ analysisId: analysis.id, kind: 'policies', id: gdprPolicies[i % gdprPolicies.length] });
        if (key === 'gdpr' && i % 7 === 0) mappings.push({ analysisId: analysis.id, kind: 'risks', id: riskIds[8] });
        if (i % 40 === 1) mappings.push({ analysisId: analysis.id, kind: 'projects', id: projectIds[i % projectIds.length] });
        // About two in three assessed; those with a control more likely compliant.
        if (rnd() < 0.65) {
          const status = control ? pick(['compliant', 'compliant', 'partially_compliant', 'non_compliant'] as const) : pick(['partially_compliant', 'non_compliant', 'not_applicable'] as const);
          await updateAnalysis(tx, past(between(178, 22, assessing, assessments[0].n)), analysis.id, {
            status, assessorId: userIds.get('grace.okafor')!, notes: status === 'compliant' ? 'Met by the mapped controls; evidence on file.' : 'Gap noted in the last assessment; see the project plan.',
            // The Statement of Applicability: excluded requirements say why.
            ...(status === 'not_applicable'
              ? { applicable: false, justification: 'Out of scope: Harbourline does not carry out this processing or operate this kind of system.' }
              : { justification: 'In scope: applies to the freight, warehousing and customer portal services.' }),
          });
          assessed += 1;
        }
        assessing += 1;
      }
      for (const chunk of chunks(mappings)) idsOf('mapping', await linkRecords(tx, past(key === 'gdpr' ? 21 : between(178, 22, assessing, assessments[0].n)), chunk));
    });
    mapped += mappings.length;
  }
  count('analyses assessed', assessed);
  count('mappings', mapped);
  say('compliance packages, analyses and mappings');

  // Incidents, one a personal-data breach notified to the authority and the subjects.
  const incidentClass = new Map((await selectRows<{ id: string; name: string }>(db, sql`select id, name from incident_classifications`)).map((r) => [r.name, r.id]));
  await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    const writer = past(20);
    const [breach, malware, outage, phishing] = idsOf('incident', await createRecords(tx, incidentKind, writer, [
      { title: 'Payroll export emailed to the wrong recipient', description: 'A payroll export with 212 employees\' bank details was emailed to an external address by mistake.', classificationId: incidentClass.get('Personal data breach')!, openedAt: daysFrom(today, -40), assetId: assetIds.get('Payroll and HR system')!, thirdPartyId: thirdPartyIds[0], ownerGroupId: securityOps },
      { title: 'Malware on a warehouse kiosk', description: 'EDR quarantined a trojan on a kiosk in Rotterdam.', classificationId: incidentClass.get('Malware')!, openedAt: daysFrom(today, -95), assetId: assetIds.get('Warehouse management system')!, status: 'closed', resolution: 'Kiosk reimaged; USB ports disabled on all kiosks.', ownerGroupId: securityOps },
      { title: 'Customs gateway unavailable for six hours', description: 'The declaration gateway rejected connections after a certificate expired.', classificationId: incidentClass.get('Service outage')!, openedAt: daysFrom(today, -150), assetId: assetIds.get('Customs declaration gateway')!, status: 'closed', resolution: 'Certificate renewed; expiry monitoring added.', ownerGroupId: securityOps },
      { title: 'Invoice phishing campaign', description: 'Twelve staff received fake invoices; two clicked, no credentials entered.', classificationId: incidentClass.get('Phishing')!, openedAt: daysFrom(today, -8), ownerGroupId: securityOps },
    ], { owners }));
    await putBreach(tx, writer, breach, { categories: ['Bank details', 'Names and addresses', 'Salary'], approximateSubjects: 212, detectedAt: daysFrom(today, -40), reportedAt: daysFrom(today, -39) });
    await addBreachNotification(tx, writer, breach, { recipient: 'authority', notifiedOn: daysFrom(today, -38), reference: 'AP-2026-04417' });
    await addBreachNotification(tx, writer, breach, { recipient: 'subjects', notifiedOn: daysFrom(today, -36), reference: 'Letter to affected employees' });
    void malware; void outage; void phishing;
  });
  count('incidents', 4);

  // Privacy: the processing register (Art. 30) and a DPIA of the riskiest processing, signed off today (below).
  const dpiaIds: string[] = [];
  await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    const writer = past(18);
    const [payroll, portal, telematics] = idsOf('processing activity', await createRecords(tx, processingActivityKind, writer, [
      { name: 'Payroll and HR administration', role: 'controller', status: 'active', purposes: 'Paying staff, tax and social security, leave and absence.', legalBasis: 'legal_obligation', dataSubjectCategories: ['employees', 'contractors'], personalDataCategories: ['identification', 'contact_details', 'financial', 'employment'], recipients: 'Tax authority; pension fund; the payroll provider.', retention: 'Seven years after employment ends.', systemAssetIds: [assetIds.get('Payroll and HR system')!], processorThirdPartyIds: [thirdPartyIds[0]], securityMeasures: 'Role-based access, encryption at rest, quarterly access review.', ownerGroupId: complianceOffice },
      { name: 'Customer portal accounts', role: 'controller', status: 'active', purposes: 'Customer sign-in, shipment tracking and notifications.', legalBasis: 'contract', dataSubjectCategories: ['customers'], personalDataCategories: ['identification', 'contact_details', 'online_identifiers'], recipients: 'Hosting provider (processor).', retention: 'While the account is active, then one year.', securityMeasures: 'MFA for staff, TLS, logging.', ownerGroupId: complianceOffice },
      { name: 'Driver telematics and route tracking', role: 'controller', status: 'active', purposes: 'Route planning, proof of delivery and driver safety.', legalBasis: 'legitimate_interests', dataSubjectCategories: ['employees', 'contractors'], personalDataCategories: ['identification', 'location'], recipients: 'Customers receive delivery times, not locations.', retention: 'Ninety days; incidents kept until closed.', securityMeasures: 'Pseudonymised after 30 days; access by the transport planners only.', ownerGroupId: complianceOffice },
    ], { owners }));
    void payroll; void portal;
    dpiaIds.push(...idsOf('DPIA', await createRecords(tx, dpiaKind, past(17), [
      { name: 'DPIA: driver telematics', processingActivityId: telematics, criteriaMet: ['systematic_monitoring', 'large_scale', 'innovative_technology'], description: 'Continuous location of drivers during shifts.', necessityAndProportionality: 'Needed for delivery proof; collection stops outside shifts.', risksToDataSubjects: 'Monitoring beyond working time; profiling of drivers.', measures: 'Tracking off outside shifts; pseudonymisation after 30 days; works council agreement.', residualRisk: 'low', residualJudgement: 'Acceptable with the measures in place.', dpoAdvice: 'Proceed; review yearly.', ownerGroupId: complianceOffice },
    ], { owners })));
  });
  count('processing activities', 3);
  count('DPIAs', dpiaIds.length);
  say('privacy');
  say('incidents');

  // Audits with findings on controls.
  await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    const writer = past(16);
    const [internal, customer] = idsOf('audit plan', await createRecords(tx, auditPlanKind, writer, [
      { title: 'Internal audit: access management', scope: 'Joiners, movers and leavers; privileged access; quarterly reviews.', periodStart: daysFrom(today, -120), periodEnd: daysFrom(today, -60), status: 'completed', ownerId: auditor.userId },
      { title: 'Brightside Retail supplier audit', scope: 'Customer audit of backup, incident response and supplier controls.', periodStart: daysFrom(today, -20), periodEnd: daysFrom(today, 20), status: 'in_progress', ownerId: auditor.userId },
    ], { owners }));
    const [leavers] = idsOf('finding', await createRecords(tx, findingKind, writer, [
      { auditPlanId: internal, title: 'Leavers kept SaaS access for up to 21 days', description: 'Four of 25 leavers sampled still had access to the telematics platform.', controlId: controlByRef.get('AC-2')!, deadline: daysFrom(today, 30), ownerId: auditor.userId },
      { auditPlanId: internal, title: 'Privileged accounts without approval record', description: 'Two administrator accounts had no approval ticket.', controlId: controlByRef.get('AC-6')!, deadline: daysFrom(today, -5), ownerId: auditor.userId },
      { auditPlanId: customer, title: 'Restore test not documented for the customs gateway', description: 'The quarterly restore test ran but left no record.', controlId: controlByRef.get('CP-10')!, deadline: daysFrom(today, 45), ownerId: auditor.userId },
    ], { owners }));
    // A finding is created open; remediation starts with an update, as on the screen.
    idsOf('finding update', await updateRecords(tx, findingKind, past(14), [{ id: leavers, patch: { status: 'in_remediation' } }], { owners }));
  });
  count('audit plans', 2);
  count('audit findings', 3);
  say('audits');

  // Evidence with files in the storage, each linked to a control; vendor reports on the vendors.
  const evidenceInputs = Array.from({ length: sizes.evidence }, (_, i) => {
    const vendor = i < THIRD_PARTIES.length && THIRD_PARTIES[i][1] === 'vendor' && i % 2 === 0;
    const [ref, name] = CONTROLS[i % CONTROLS.length];
    return vendor
      ? { title: `${THIRD_PARTIES[i][0]} ISO 27001 certificate`, description: 'Certificate and statement of applicability received from the vendor.', kind: 'vendor_report' as const, thirdPartyId: thirdPartyIds[i], collectedOn: daysFrom(today, -60 - i), validUntil: daysFrom(today, 300 - i * 20) }
      : { title: `${ref} ${name}: evidence ${Math.floor(i / CONTROLS.length) + 1}`, description: `Evidence that ${name.toLowerCase()} operates.`, collectedOn: daysFrom(today, -Math.floor(rnd() * 330)), validUntil: rnd() < 0.2 ? daysFrom(today, 10) : daysFrom(today, 200 + Math.floor(rnd() * 200)) };
  });
  const evidenceIds: string[] = [];
  const evidenceBatches = chunks(chunks(evidenceInputs), 4);
  for (const [b, batch] of evidenceBatches.entries()) {
    const writer = past(between(12, 6, b, evidenceBatches.length));
    await db.transaction(async (tx) => {
      const owners = await loadOwnerLookup(tx);
      for (const chunk of batch) evidenceIds.push(...idsOf('evidence', await createRecords(tx, evidenceKind, writer, chunk.map((e) => ({ ...e, ownerGroupId: complianceOffice })), { owners })));
    });
  }
  // Files go to the storage a few at a time, then are recorded (with their links) a batch per transaction.
  let files = 0;
  for (const group of chunks(evidenceIds.map((id, i) => ({ id, i })), 200)) {
    const stored: { id: string; i: number; name: string; stored: StoredBytes }[] = [];
    for (const slice of chunks(group, 16)) {
      stored.push(...(await Promise.all(slice.map(async ({ id, i }) => {
        const input = evidenceInputs[i];
        const name = 'kind' in input ? `certificate-${i + 1}.txt` : `evidence-${i + 1}.csv`;
        const text = 'kind' in input
          ? `${input.title}\nIssued by an accredited certification body (fictional demonstration data).\n`
          : `date,sample,result\n${Array.from({ length: 5 }, (_, k) => `${daysFrom(today, -k * 7)},item-${i + 1}-${k + 1},${k === 3 && i % 4 === 0 ? 'exception' : 'ok'}`).join('\n')}\n`;
        const bytes = new TextEncoder().encode(text);
        return { id, i, name, stored: await storeFile(ctx, new Blob([bytes]).stream(), bytes.length) };
      }))));
    }
    // Stored bytes whose records are not written are removed again, as a refused upload's are.
    const discard = (error: unknown) => Promise.all(stored.map((s) => ctx.storage.remove(s.stored.storageKey).catch(() => {}))).then(() => { throw error; });
    await db.transaction(async (tx) => {
      const writer = past(5);
      files += (await recordStoredFiles(tx, writer, stored.map(({ id, name, stored: bytes }) => ({ evidenceId: id, name, stored: bytes })))).length;
      await linkEvidenceBatch(tx, writer, stored.filter(({ i }) => !('kind' in evidenceInputs[i]))
        .map(({ id, i }) => ({ evidenceId: id, recordType: 'control', recordId: controlIds[i % controlIds.length] })));
    }).catch(discard);
  }
  count('evidence', evidenceIds.length);
  count('evidence files', files);
  say(`${evidenceIds.length} evidence records with files`);

  // Awareness: a phishing program published to everyone, taken by most of the people today (below).
  const audience = [...new Set(PEOPLE.map((p) => groupIds.get(p.group)!))];
  const [awarenessProgram] = await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    const ids = idsOf('awareness program', await createRecords(tx, awarenessProgramKind, past(4), [{
      title: 'Phishing and invoice fraud awareness', content: '# Spotting phishing\n\nCheck the sender, hover before you click, and report suspicious invoices to the security desk.\n',
      audienceGroupIds: audience, startsOn: daysFrom(today, -4), endsOn: daysFrom(today, 26), passMark: 50, ownerGroupId: securityOps,
      questions: [
        { text: 'An invoice asks you to pay a new bank account. What do you do?', kind: 'single', choices: ['Pay it', 'Call the supplier on a known number'], correct: [1] },
        { text: 'Which are signs of phishing?', kind: 'multiple', choices: ['Urgency', 'A look-alike sender domain', 'Your manager\'s usual signature'], correct: [0, 1] },
      ],
    }], { owners }));
    await publishProgram(tx, past(3), ids[0]);
    return ids;
  });
  count('awareness programs', 1);

  // Exceptions: a risk exception requested and approved, a policy exception waiting for a decision.
  await db.transaction(async (tx) => {
    const { id: riskException } = await createException(tx, riskParent, riskLead, {
      parentId: riskIds[18], title: 'Key person dependency accepted until the new broker is licensed',
      description: 'Recruiting a third broker takes about six months; cross-training continues meanwhile.', expiresAt: daysFrom(today, 180), approverId: userIds.get('avery.lindqvist')!,
    });
    await decideException(tx, riskParent, admin, riskException, { decision: 'approved', note: 'Approved for six months; revisit at the next risk committee.' });
    await createException(tx, policyParent, compliance, {
      parentId: policyIds[1], title: 'Personal phones for warehouse scanning app',
      description: 'Warehouse leads use personal phones for the scanning app until company devices arrive.', expiresAt: daysFrom(today, 90), approverId: userIds.get('avery.lindqvist')!,
    });
  });
  count('exceptions', 2);

  // An account review of the identity provider's accounts, partly decided.
  await db.transaction(async (tx) => {
    const owners = await loadOwnerLookup(tx);
    const [program] = idsOf('account review', await createRecords(tx, programKind, auditor, [
      { name: 'Quarterly access review: identity provider', description: 'Every account in the identity provider, confirmed by its owner.', dueOn: daysFrom(today, 21) },
    ], { owners }));
    const accounts = [
      ['svc-backup', 'Identity provider', 'tomasz.wojcik', 'keep'], ['j.nowak', 'Identity provider', 'priya.raman', 'revoke'],
      ['admin-legacy', 'Identity provider', 'tomasz.wojcik', 'modify'], ['k.schmidt', 'Identity provider', 'grace.okafor', null],
      ['warehouse-kiosk-07', 'Warehouse management system', 'tomasz.wojcik', null], ['finance-bot', 'ERP finance ledger', 'avery.lindqvist', null],
    ] as const;
    for (const [account, system, owner, decision] of accounts) {
      const { id } = await addItem(tx, auditor, program, { account, system, owner: `${owner}@${DEMO_DOMAIN}` });
      if (decision) await decideItem(tx, auditor, program, id, { decision, reviewer: `${owner}@${DEMO_DOMAIN}`, notes: decision === 'keep' ? 'Still needed.' : 'Raised with the service desk.' });
    }
    count('account review items', accounts.length);
  });
  count('account reviews', 1);

  // Today, as the people themselves: the DPIA signed off, the training taken (one passes, one fails, one only opened it).
  await db.transaction(async (tx) => {
    for (const id of dpiaIds) await signOffDpia(tx, admin, id);
    const results = new Map((await tx.select({ id: awarenessResults.id, personId: awarenessResults.personId }).from(awarenessResults)
      .where(eq(awarenessResults.programId, awarenessProgram))).map((r) => [r.personId, r.id]));
    const taking: [Actor, number[][] | null][] = [[riskLead, [[1], [0, 1]]], [secOps, [[0], [0]]], [compliance, null], [auditor, [[1], [0, 1]]]];
    for (const [person, answers] of taking) {
      const resultId = results.get(person.userId!);
      if (!resultId) continue;
      await startTraining(tx, person, resultId);
      if (answers) await submitAttempt(tx, person, resultId, { answers });
    }
    count('awareness results', results.size);
  });

  // Notification rules last and disabled: nothing loaded above is mailed; an administrator turns them on.
  await db.transaction(async (tx) => {
    await createRule(tx, admin, { name: 'New incident: tell Security Operations', recordType: incidentKind.recordType, event: 'created', field: null, value: null, notifyOwner: true, notifyOwnerGroup: true, userIds: [], groupIds: [securityOps], addresses: [], enabled: false });
    await createRule(tx, admin, { name: 'Risk changed: tell its owner', recordType: riskKind.recordType, event: 'changed', field: null, value: null, notifyOwner: true, notifyOwnerGroup: false, userIds: [], groupIds: [], addresses: [], enabled: false });
  });
  count('notification rules', 2);

  // Scheduled reports, paused like the rules: an administrator resumes them once the data is real.
  await db.transaction(async (tx) => {
    await createSchedule(ctx, tx, admin, {
      name: 'Risk register for the risk committee', reportKey: 'riskRegister', filters: {}, frequency: 'monthly', weekday: null, monthDay: 1,
      userIds: [riskLead.userId!], groupIds: [riskOffice], paused: true,
    });
    await createSchedule(ctx, tx, admin, {
      name: 'Control test status every Monday', reportKey: 'controlTestStatus', filters: {}, frequency: 'weekly', weekday: 1, monthDay: null,
      userIds: [], groupIds: [complianceOffice], paused: true,
    });
  });
  count('scheduled reports', 2);

  return { people, counts, seconds: (performance.now() - started) / 1000 };
}
