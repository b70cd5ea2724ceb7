import { Type, type Static } from '@sinclair/typebox';
import { asc, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { groups, notificationRules, users } from '../../../db/schema';
import { AppError, invalid, notFound, type FieldProblem } from '../core/errors';
import { schemaProblems } from '../http/form-input';
import { recordChange } from '../audit/history';
import { moduleLabel } from '../http/installed';
import { recordEvents } from './declarations';
import { requirePermission, type Actor } from '../permissions/permissions';
import { EVENT_LABELS, RULE_EVENTS, type RecordEvents } from './declarations';
import { startRuleMailsAt } from './rule-mails';
import { EMAIL, inOwnDomains, mailSettings } from './settings';

const Uuid = Type.String({ format: 'uuid' });

/** A notification rule as the form (and the service) takes it. */
export const NotificationRuleInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  recordType: Type.String({ minLength: 1, maxLength: 100 }),
  event: Type.Union(RULE_EVENTS.map((e) => Type.Literal(e))),
  field: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
  value: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
  notifyOwner: Type.Boolean(),
  notifyOwnerGroup: Type.Boolean(),
  userIds: Type.Array(Uuid, { maxItems: 200 }),
  groupIds: Type.Array(Uuid, { maxItems: 200 }),
  addresses: Type.Array(Type.String({ maxLength: 320 }), { maxItems: 50 }),
  enabled: Type.Boolean(),
}, { additionalProperties: false });
export type NotificationRuleInput = Static<typeof NotificationRuleInput>;

export type NotificationRule = typeof notificationRules.$inferSelect;

/** The declared record type a rule names, or undefined. */
export const eventsOf = (recordType: string): RecordEvents | undefined => recordEvents().find((e) => e.recordType === recordType);

/** "Risks › Risk treatment": where a record type sits, as the rule form and list name it. */
export const recordTypeLabel = (events: RecordEvents) => `${events.module === 'settings' ? 'People' : moduleLabel(events.module)} › ${events.label}`;

/** What a rule watches, in words: "Risk › Status changed to Closed". */
export function describeEvent(rule: Pick<NotificationRule, 'recordType' | 'event' | 'field' | 'value'>): string {
  const events = eventsOf(rule.recordType);
  if (!events) return `${rule.recordType} (no longer installed)`;
  switch (rule.event) {
    case 'field_changed': return `${events.fields[rule.field ?? ''] ?? rule.field} changed`;
    case 'status_changed': return `Status changed to ${events.statuses?.[rule.value ?? ''] ?? rule.value}`;
    case 'recorded': return rule.value ? (events.activities?.find((a) => a.key === rule.value)?.label ?? rule.value) : 'Comment, review or decision recorded';
    default: return EVENT_LABELS[rule.event];
  }
}

function requireRuleManager(actor: Actor): void {
  if (requirePermission(actor, 'settings:update') !== 'all') {
    throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], 'settings:update at level all needed for notification rules'), { actor });
  }
}

/** Every problem of a rule at once: names of things that do not exist, and outside addresses (refused). */
async function ruleProblems(db: DbOrTx, input: NotificationRuleInput): Promise<FieldProblem[]> {
  const problems = schemaProblems(NotificationRuleInput, input);
  if (problems.length) return problems;
  const events = eventsOf(input.recordType);
  if (!events) return [{ field: 'recordType', message: `there is no record type "${input.recordType}"` }];
  if (input.event === 'field_changed' && !(input.field && input.field in events.fields)) {
    problems.push({ field: 'field', message: input.field ? `${events.label} has no field "${input.field}"` : `name the field of ${events.label.toLowerCase()}s to watch` });
  }
  if (input.event === 'status_changed') {
    if (!events.statuses) problems.push({ field: 'value', message: `${events.label.toLowerCase()}s have no status` });
    else if (!(input.value && input.value in events.statuses)) problems.push({ field: 'value', message: input.value ? `"${input.value}" is not a status of ${events.label.toLowerCase()}s` : 'choose the status' });
  }
  if (input.event === 'recorded') {
    if (!events.activities?.length) problems.push({ field: 'event', message: `nothing is recorded on ${events.label.toLowerCase()}s beyond their changes` });
    else if (input.value && !events.activities.some((a) => a.key === input.value)) problems.push({ field: 'value', message: `"${input.value}" is not recorded on ${events.label.toLowerCase()}s` });
  }
  const [knownUsers, knownGroups, mail] = await Promise.all([
    input.userIds.length ? db.select({ id: users.id }).from(users).where(inArray(users.id, input.userIds)) : [],
    input.groupIds.length ? db.select({ id: groups.id }).from(groups).where(inArray(groups.id, input.groupIds)) : [],
    mailSettings(db),
  ]);
  if (knownUsers.length !== new Set(input.userIds).size) problems.push({ field: 'userIds', message: 'names a user that does not exist' });
  if (knownGroups.length !== new Set(input.groupIds).size) problems.push({ field: 'groupIds', message: 'names a group that does not exist' });
  const malformed = input.addresses.find((a) => !EMAIL.test(a));
  const outside = input.addresses.find((a) => EMAIL.test(a) && !inOwnDomains(mail.domains, a));
  if (malformed) problems.push({ field: 'addresses', message: `"${malformed}" is not an email address` });
  else if (outside) {
    problems.push({ field: 'addresses', message: mail.domains.length
      ? `${outside} is outside the organisation's mail domains (${mail.domains.join(', ')}); mail goes outside only as assessment emails`
      : `${outside} is refused: list the organisation's own mail domains in Settings › Mail first` });
  }
  if (!input.notifyOwner && !input.notifyOwnerGroup && !input.userIds.length && !input.groupIds.length && !input.addresses.length) {
    problems.push({ field: 'recipients', message: 'choose at least one recipient' });
  }
  return problems;
}

/** Stored as given, with what the event does not use cleared (a status for a created rule). */
function normalised(input: NotificationRuleInput): NotificationRuleInput {
  return {
    ...input,
    name: input.name.trim(),
    field: input.event === 'field_changed' ? input.field : null,
    value: input.event === 'status_changed' || input.event === 'recorded' ? (input.value || null) : null,
    userIds: [...new Set(input.userIds)],
    groupIds: [...new Set(input.groupIds)],
    addresses: [...new Set(input.addresses.map((a) => a.trim().toLowerCase()))],
  };
}

const audited = (rule: NotificationRuleInput) => ({ ...rule });

export async function listRules(db: DbOrTx, actor: Actor): Promise<NotificationRule[]> {
  requirePermission(actor, 'settings:read');
  return db.select().from(notificationRules).orderBy(asc(notificationRules.name), asc(notificationRules.id));
}

export async function getRule(db: DbOrTx, actor: Actor, id: string): Promise<NotificationRule> {
  requirePermission(actor, 'settings:read');
  const [rule] = /^[0-9a-f-]{36}$/i.test(id) ? await db.select().from(notificationRules).where(eq(notificationRules.id, id)) : [];
  if (!rule) throw notFound(`Notification rule ${id}`);
  return rule;
}

/** Creating, changing and deleting rules needs settings:update at level all; each is in the Audit Log and History. */
export async function createRule(tx: DbOrTx, actor: Actor, input: NotificationRuleInput): Promise<{ id: string }> {
  requireRuleManager(actor);
  const problems = await ruleProblems(tx, input);
  if (problems.length) throw invalid(problems);
  const values = normalised(input);
  const [row] = await tx.insert(notificationRules).values({ ...values, createdBy: actor.userId }).returning({ id: notificationRules.id });
  await recordChange(tx, actor, { module: 'settings', recordType: 'notificationRule', recordId: row.id, action: 'create', before: null, after: audited(values) });
  await startRuleMailsAt(tx);
  return row;
}

export async function updateRule(tx: DbOrTx, actor: Actor, id: string, input: NotificationRuleInput): Promise<void> {
  requireRuleManager(actor);
  const before = await getRule(tx, actor, id);
  const problems = await ruleProblems(tx, input);
  if (problems.length) throw invalid(problems);
  const values = normalised(input);
  await tx.update(notificationRules).set({ ...values, updatedAt: new Date() }).where(eq(notificationRules.id, id));
  await recordChange(tx, actor, { module: 'settings', recordType: 'notificationRule', recordId: id, action: 'update', before: audited(ruleInput(before)), after: audited(values) });
}

export async function deleteRule(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  requireRuleManager(actor);
  const before = await getRule(tx, actor, id);
  await tx.delete(notificationRules).where(eq(notificationRules.id, id));
  await recordChange(tx, actor, { module: 'settings', recordType: 'notificationRule', recordId: id, action: 'delete', before: audited(ruleInput(before)), after: null });
}

export const ruleInput = (rule: NotificationRule): NotificationRuleInput => ({
  name: rule.name, recordType: rule.recordType, event: rule.event, field: rule.field, value: rule.value, notifyOwner: rule.notifyOwner,
  notifyOwnerGroup: rule.notifyOwnerGroup, userIds: rule.userIds, groupIds: rule.groupIds, addresses: rule.addresses, enabled: rule.enabled,
});

/** Named recipients a rule skips: deactivated users (reported on the rules page). */
export async function skippedRecipients(db: DbOrTx, rules: NotificationRule[]): Promise<Map<string, string[]>> {
  const ids = [...new Set(rules.flatMap((r) => r.userIds))];
  const named = ids.length ? await db.select({ id: users.id, name: users.name, status: users.status }).from(users).where(inArray(users.id, ids)) : [];
  const deactivated = new Map(named.filter((u) => u.status !== 'active').map((u) => [u.id, u.name]));
  return new Map(rules.map((r) => [r.id, r.userIds.flatMap((id) => (deactivated.has(id) ? [deactivated.get(id)!] : []))]));
}
