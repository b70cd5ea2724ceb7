import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { selectRows, type DbOrTx, type Tx } from '../../../db/client';
import { apiTokens, auditLog, groupMembers, groups, history, mailPreferences, notificationCursor, notificationRules, outbox, users } from '../../../db/schema';
import { onWriteCommitted, type AppContext } from '../http/context';
import { definitionsFor } from '../records/custom-field-values';
import type { FieldChanges } from '../audit/history';
import { historyAsSeen, nameAsSeen } from '../records/links';
import { findRecordType, recordRows } from '../records/record-types';
import { log } from '../core/log';
import { platformService } from '../http/installed';
import { recordEvents } from './declarations';
import { levelOf, ownsRecord, type Actor, type Permission } from '../permissions/permissions';
import type { Activity, RecordEvents, StoredRecord } from './declarations';
import { notificationSettings } from './settings';
import { mailLink, whenIn } from './wording';

/**
 * Rule mails. Every write records its History entry through `recordChanges` (src/platform/audit/history.ts) in the write's
 * transaction; that entry is the event. After each write commits, and at every background sweep, this reads the History
 * entries past a cursor, matches them against the enabled rules, and queues one mail per person and change in the outbox
 * in the same transaction that moves the cursor on. Audit entries commit in sequence order (their chain lock is held
 * until commit), so the cursor never passes an entry still to come, and a crash repeats nothing and loses nothing.
 * The write itself pays nothing for rules.
 */

const RULE_MAIL_LOCK = 7231010;
const BATCH = 500;
const CURSOR = 'rules';
/** Doors whose changes mail only while "Notify on API changes and CSV imports" is on: every door but the screens. */
const PERSON_IN_THE_APP = 'screen';

type Rule = typeof notificationRules.$inferSelect;
type Entry = Pick<typeof history.$inferSelect, 'recordType' | 'recordId' | 'action' | 'actorUserId' | 'actorTokenId' | 'via' | 'source' | 'at' | 'auditSeq'> & { changes: FieldChanges };

/** One History entry as an event of a declared record type: its own change, or an activity recorded on its parent. */
interface Occurrence {
  events: RecordEvents;
  recordId: string;
  entry: Entry;
  /** The entry is the record's own change (not a review or test recorded on it). */
  own: boolean;
  activity?: Activity;
}

export function occurrencesOf(entry: Entry, declared: readonly RecordEvents[]): Occurrence[] {
  const found: Occurrence[] = [];
  for (const events of declared) {
    if (events.recordType === entry.recordType) {
      const activity = events.activities?.find((a) => a.actions?.includes(entry.action));
      found.push({ events, recordId: entry.recordId, entry, own: true, activity });
    }
    for (const activity of events.activities ?? []) {
      if (activity.recordType !== entry.recordType || entry.action !== 'create' || !activity.parentField) continue;
      const parentId = entry.changes[activity.parentField]?.after;
      if (typeof parentId === 'string') found.push({ events, recordId: parentId, entry, own: false, activity });
    }
  }
  return found;
}

/** Whether a rule's event happened in this occurrence. */
export function matches(rule: Pick<Rule, 'recordType' | 'event' | 'field' | 'value'>, occurrence: Occurrence): boolean {
  const { events, entry, own } = occurrence;
  if (rule.recordType !== events.recordType) return false;
  const changing = own && entry.action !== 'create' && entry.action !== 'delete';
  switch (rule.event) {
    case 'created': return own && entry.action === 'create';
    case 'deleted': return own && entry.action === 'delete';
    case 'changed': return changing;
    case 'field_changed': return changing && rule.field !== null && rule.field in entry.changes;
    case 'status_changed': {
      const status = entry.changes[events.statusField ?? 'status'];
      return changing && status !== undefined && status.after === rule.value;
    }
    case 'assigned': {
      const owner = entry.changes.ownerId;
      return own && entry.action !== 'delete' && typeof owner?.after === 'string';
    }
    case 'recorded': return occurrence.activity !== undefined && (!rule.value || rule.value === occurrence.activity.key);
    default: return false;
  }
}

/** Per context: one pass at a time, and one more after it when writes committed meanwhile. */
const passes = new WeakMap<AppContext, { running: Promise<number>; again: boolean }>();

/** Queues the rule mails of every change committed so far; resolves with how many were queued. */
export function makeRuleMails(ctx: AppContext): Promise<number> {
  const current = passes.get(ctx);
  if (current) {
    current.again = true;
    return current.running;
  }
  const state = { again: false, running: Promise.resolve(0) };
  state.running = (async () => {
    let queued = 0;
    try {
      do {
        state.again = false;
        queued += await catchUp(ctx);
      } while (state.again);
    } finally {
      passes.delete(ctx);
    }
    if (queued) void ctx.mailer.deliverOutbox().catch(() => {});
    return queued;
  })();
  passes.set(ctx, state);
  return state.running;
}

/** After a write: rule mails are made in the background; a failure is logged and retried by the next pass. */
function afterWrite(ctx: AppContext): void {
  // A macrotask later: the request that wrote answers first, without sharing its time with the rules.
  setTimeout(() => makeRuleMails(ctx).catch((error) => log.error('rule mails failed', { error: String(error) })), 0);
}

/**
 * Called in the transaction that creates a rule, after its audit entry: mail starts with the changes after it. Before
 * the first rule the cursor does not exist, and the first pass starts at the present.
 */
export async function startRuleMailsAt(tx: DbOrTx): Promise<void> {
  const [{ head }] = await selectRows<{ head: string | null }>(tx, sql`select max(${auditLog.seq}) as head from ${auditLog}`);
  await tx.insert(notificationCursor).values({ name: CURSOR, auditSeq: Number(head ?? 0) }).onConflictDoNothing();
}

async function catchUp(ctx: AppContext): Promise<number> {
  let queued = 0;
  for (;;) {
    const pass = await ctx.db.transaction((tx) => onePass(ctx, tx));
    if (!pass) return queued;
    queued += pass.queued;
    if (!pass.more) return queued;
  }
}

async function onePass(ctx: AppContext, tx: Tx): Promise<{ queued: number; more: boolean } | null> {
  const [{ locked }] = await selectRows<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${RULE_MAIL_LOCK}) as locked`);
  // Another process is making them: it will see these changes too (its cursor reads what committed before it looks).
  if (!locked) return null;
  const [{ head }] = await selectRows<{ head: string | null }>(tx, sql`select max(${auditLog.seq}) as head from ${auditLog}`);
  const headSeq = Number(head ?? 0);
  const [stored] = await tx.select({ seq: notificationCursor.auditSeq }).from(notificationCursor).where(eq(notificationCursor.name, CURSOR));
  if (!stored) {
    // The first pass on a database starts at its present: nothing written before rules existed is mailed.
    await tx.insert(notificationCursor).values({ name: CURSOR, auditSeq: headSeq }).onConflictDoNothing();
    return { queued: 0, more: false };
  }
  if (headSeq <= stored.seq) return { queued: 0, more: false };
  const moveTo = async (seq: number) => tx.update(notificationCursor).set({ auditSeq: seq, updatedAt: new Date() }).where(eq(notificationCursor.name, CURSOR));
  const rules = await tx.select().from(notificationRules).where(eq(notificationRules.enabled, true));
  const declared = recordEvents();
  const watched = new Set(rules.map((r) => r.recordType));
  const types = [...new Set(declared.filter((d) => watched.has(d.recordType))
    .flatMap((d) => [d.recordType, ...(d.activities ?? []).flatMap((a) => (a.recordType ? [a.recordType] : []))]))];
  if (types.length === 0) {
    await moveTo(headSeq);
    return { queued: 0, more: false };
  }
  const settings = await notificationSettings(tx);
  const entries = await tx.select({
    recordType: history.recordType, recordId: history.recordId, action: history.action, actorUserId: history.actorUserId,
    actorTokenId: history.actorTokenId, via: history.via, source: history.source, at: history.at, auditSeq: history.auditSeq, changes: history.changes,
  }).from(history).where(and(
    gt(history.auditSeq, stored.seq), lte(history.auditSeq, headSeq), inArray(history.recordType, types),
    settings.notifyOnApiChanges ? undefined : eq(history.via, PERSON_IN_THE_APP),
  )).orderBy(asc(history.auditSeq)).limit(BATCH) as Entry[];
  const more = entries.length === BATCH;
  const mails = await composeMails(ctx, tx, rules, declared, entries, settings.timeZone);
  if (mails.length) await tx.insert(outbox).values(mails);
  await moveTo(more ? entries[entries.length - 1].auditSeq! : headSeq);
  return { queued: mails.length, more };
}

interface Recipient {
  /** A person (their rights decide what they may read), or a fixed address read as the rule's author. */
  userId: string;
  email: string;
  name: string;
  /** The fixed address, when the mail goes to one that is not a person's. */
  address?: string;
  rules: Set<string>;
}

async function composeMails(ctx: AppContext, tx: DbOrTx, rules: Rule[], declared: RecordEvents[], entries: Entry[], timeZone: string) {
  const matched = entries.flatMap((entry) => occurrencesOf(entry, declared))
    .map((occurrence) => ({ occurrence, rules: rules.filter((rule) => matches(rule, occurrence)) }))
    .filter((m) => m.rules.length > 0);
  if (matched.length === 0) return [];
  const records = await loadRecords(tx, matched.map((m) => m.occurrence));
  const people = await peopleFor(tx, rules, matched, records);
  const readers = new Map<string, Promise<Actor | null>>();
  const readerOf = (userId: string) => {
    let reader = readers.get(userId);
    if (!reader) readers.set(userId, (reader = platformService('screenActor')(tx, userId)));
    return reader;
  };
  const names = await namesIn(tx, matched.map((m) => m.occurrence), entries);
  const mails: { kind: string; recipients: string[]; subject: string; body: string }[] = [];
  for (const { occurrence, rules: hits } of matched) {
    const record = records.get(keyOf(occurrence)) ?? fromHistory(occurrence);
    const recipients = new Map<string, Recipient>();
    for (const rule of hits) {
      for (const recipient of recipientsOf(rule, record, people)) {
        const key = recipient.address ?? recipient.userId;
        const known = recipients.get(key);
        if (known) known.rules.add(rule.name);
        else recipients.set(key, { ...recipient, rules: new Set([rule.name]) });
      }
    }
    for (const recipient of recipients.values()) {
      // Who made the change knows it; a person who turned rule mails off gets none.
      if (!recipient.address && (recipient.userId === occurrence.entry.actorUserId || people.optedOut.has(recipient.userId))) continue;
      const reader = await readerOf(recipient.userId);
      // A deactivated person (or a rule author gone for a fixed address) gets nothing, and nobody reads what they may not.
      if (!reader || !mayRead(reader, occurrence.events, record)) continue;
      mails.push({
        kind: 'rule',
        recipients: [recipient.address ?? recipient.email],
        ...(await renderRuleMail(ctx, tx, { occurrence, record, reader, recipient, names, timeZone })),
      });
    }
  }
  return mails;
}

const keyOf = (o: Occurrence) => `${o.events.recordType}:${o.recordId}`;

/** Stored titles and owners of every record the occurrences are about, one query per record type. */
async function loadRecords(tx: DbOrTx, occurrences: Occurrence[]): Promise<Map<string, StoredRecord>> {
  const byType = new Map<RecordEvents, Set<string>>();
  for (const o of occurrences) {
    if (!byType.has(o.events)) byType.set(o.events, new Set());
    byType.get(o.events)!.add(o.recordId);
  }
  const found = new Map<string, StoredRecord>();
  for (const [events, ids] of byType) {
    const valid = [...ids].filter((id) => /^[0-9a-f-]{36}$/i.test(id));
    for (const [id, record] of await events.load(tx, valid)) found.set(`${events.recordType}:${id}`, record);
  }
  return found;
}

/** A deleted record: its title and owners as History kept them before the deletion. */
function fromHistory(o: Occurrence): StoredRecord {
  const before = (key: string) => {
    const change = o.entry.changes[key];
    return (change?.before ?? change?.after ?? null) as string | null;
  };
  return {
    title: before(o.events.titleField) ?? `${o.events.label} ${o.recordId}`,
    owners: [{ ownerId: before('ownerId'), ownerGroupId: before('ownerGroupId') }],
  };
}

/** The record's module read right at level all, or at level own on a record the reader or their groups own. */
function mayRead(reader: Actor, events: RecordEvents, record: StoredRecord): boolean {
  const level = levelOf(reader, `${events.module}:read` as Permission);
  return level === 'all' || (level === 'own' && record.owners.some((owner) => ownsRecord(reader, owner)));
}

interface People {
  users: Map<string, { id: string; email: string; name: string; status: string }>;
  members: Map<string, string[]>;
  byEmail: Map<string, string>;
  optedOut: Set<string>;
}

/** Everyone the matched rules could name, their groups' members and their opt-outs, in four queries. */
async function peopleFor(tx: DbOrTx, rules: Rule[], matched: { occurrence: Occurrence; rules: Rule[] }[], records: Map<string, StoredRecord>): Promise<People> {
  const hits = new Set(matched.flatMap((m) => m.rules));
  const groupIds = new Set<string>([...hits].flatMap((r) => r.groupIds));
  const userIds = new Set<string>([...hits].flatMap((r) => [...r.userIds, ...(r.createdBy ? [r.createdBy] : [])]));
  for (const { occurrence } of matched) {
    const owner = (records.get(keyOf(occurrence)) ?? fromHistory(occurrence)).owners[0];
    if (owner?.ownerGroupId) groupIds.add(owner.ownerGroupId);
    if (owner?.ownerId) userIds.add(owner.ownerId);
  }
  const addresses = [...new Set([...hits].flatMap((r) => r.addresses.map((a) => a.toLowerCase())))];
  const memberRows = groupIds.size
    ? await tx.select({ groupId: groupMembers.groupId, userId: groupMembers.userId }).from(groupMembers).where(inArray(groupMembers.groupId, [...groupIds]))
    : [];
  for (const row of memberRows) userIds.add(row.userId);
  const person = { id: users.id, email: users.email, name: users.name, status: users.status };
  const [userRows, addressRows, optedOutRows] = await Promise.all([
    userIds.size ? tx.select(person).from(users).where(inArray(users.id, [...userIds])) : [],
    addresses.length ? tx.select(person).from(users).where(inArray(sql`lower(${users.email})`, addresses)) : [],
    // Only those who turned rule mails off have a row saying so: few.
    tx.select({ userId: mailPreferences.userId }).from(mailPreferences).where(eq(mailPreferences.ruleMails, false)),
  ]);
  const members = new Map<string, string[]>();
  for (const row of memberRows) members.set(row.groupId, [...(members.get(row.groupId) ?? []), row.userId]);
  const byEmail = new Map(addressRows.map((u) => [u.email.toLowerCase(), u.id]));
  const optedOut = new Set(optedOutRows.map((r) => r.userId));
  return { users: new Map([...userRows, ...addressRows].map((u) => [u.id, u])), members, byEmail, optedOut };
}

function recipientsOf(rule: Rule, record: StoredRecord, people: People): Omit<Recipient, 'rules'>[] {
  const ids = new Set<string>();
  const own = record.owners[0];
  if (rule.notifyOwner && own?.ownerId) ids.add(own.ownerId);
  if (rule.notifyOwnerGroup && own?.ownerGroupId) for (const id of people.members.get(own.ownerGroupId) ?? []) ids.add(id);
  for (const id of rule.userIds) ids.add(id);
  for (const group of rule.groupIds) for (const id of people.members.get(group) ?? []) ids.add(id);
  const found: Omit<Recipient, 'rules'>[] = [];
  for (const address of rule.addresses) {
    const person = people.byEmail.get(address.toLowerCase());
    if (person) ids.add(person);
    else if (rule.createdBy) {
      // A list or shared mailbox of the organisation reads what the rule's author may read.
      const author = people.users.get(rule.createdBy);
      if (author) found.push({ userId: author.id, email: author.email, name: author.name, address });
    }
  }
  for (const id of ids) {
    const user = people.users.get(id);
    if (user && user.status === 'active') found.push({ userId: user.id, email: user.email, name: user.name });
  }
  return found;
}

interface Names {
  users: Map<string, string>;
  groups: Map<string, string>;
  actors: Map<string, string>;
  tokens: Map<string, string>;
}

/** Names of the people, groups, actors and tokens the entries mention, in three queries. */
async function namesIn(tx: DbOrTx, occurrences: Occurrence[], entries: Entry[]): Promise<Names> {
  const userIds = new Set<string>(entries.flatMap((e) => (e.actorUserId ? [e.actorUserId] : [])));
  const groupIds = new Set<string>();
  for (const { events, entry } of occurrences) {
    for (const [field, change] of Object.entries(entry.changes)) {
      const target = events.people?.includes(field) ? userIds : events.groups?.includes(field) ? groupIds : null;
      for (const value of [change.before, change.after]) if (target && typeof value === 'string') target.add(value);
    }
  }
  const tokenIds = [...new Set(entries.flatMap((e) => (e.actorTokenId ? [e.actorTokenId] : [])))];
  const valid = (ids: Iterable<string>) => [...ids].filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  const [userRows, groupRows, tokenRows] = await Promise.all([
    valid(userIds).length ? tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, valid(userIds))) : [],
    valid(groupIds).length ? tx.select({ id: groups.id, name: groups.name }).from(groups).where(inArray(groups.id, valid(groupIds))) : [],
    tokenIds.length ? tx.select({ id: apiTokens.id, name: apiTokens.name }).from(apiTokens).where(inArray(apiTokens.id, tokenIds)) : [],
  ]);
  const userNames = new Map(userRows.map((u) => [u.id, u.name]));
  return { users: userNames, groups: new Map(groupRows.map((g) => [g.id, g.name])), actors: userNames, tokens: new Map(tokenRows.map((t) => [t.id, t.name])) };
}

const MAX_VALUE = 300;

function plain(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (Array.isArray(value)) return value.length ? value.map(plain).join(', ') : '(none)';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
}

/** How the door of a change reads in a mail. */
function door(entry: Entry, names: Names): string {
  switch (entry.via) {
    case 'screen': return 'in the app';
    case 'api': return entry.actorTokenId ? `through the REST API (token "${names.tokens.get(entry.actorTokenId) ?? entry.actorTokenId}")` : 'through the REST API';
    case 'import': return `by ${entry.source ?? 'a CSV import'}`;
    case 'scim': return 'through SCIM provisioning';
    case 'mcp': return 'through the AI assistant endpoint';
    default: return 'by the service';
  }
}

const VERBS: Record<string, string> = { create: 'created', delete: 'deleted', update: 'changed' };

async function renderRuleMail(ctx: AppContext, tx: DbOrTx, p: {
  occurrence: Occurrence; record: StoredRecord; reader: Actor; recipient: Recipient; names: Names; timeZone: string;
}): Promise<{ subject: string; body: string }> {
  const { occurrence: { events, entry, own, activity, recordId }, record, reader, names } = p;

  const who = entry.actorUserId ? (names.actors.get(entry.actorUserId) ?? 'Someone') : 'The service';
  const what = `${events.label.toLowerCase()} "${record.title}"`;
  const headline = activity ? `${who}: ${activity.label} on the ${what}` : `${who} ${VERBS[entry.action] ?? 'changed'} the ${what}`;
  const subject = activity
    ? `${activity.label} on ${events.label.toLowerCase()} "${record.title}"`
    : `${events.label} ${VERBS[entry.action] ?? 'changed'}: ${record.title}`;
  const lines = [`${headline}, ${whenIn(entry.at, p.timeZone)}, ${door(entry, names)}.`, ''];
  const changes = own ? await changesAsSeen(tx, p.occurrence, reader, names) : [];
  if (changes.length) lines.push(own && entry.action === 'create' ? 'Fields:' : 'What changed:', ...changes, '');
  const href = entry.action === 'delete' ? undefined : (record.href ?? events.href?.(recordId));
  if (href) lines.push(`Open it: ${mailLink(ctx.config, href)}`, '');
  const ruleNames = [...p.recipient.rules].map((n) => `"${n}"`).join(', ');
  lines.push(p.recipient.address
    ? `Sent to ${p.recipient.address} by the notification rule ${ruleNames} (Settings › Notifications).`
    : `You receive this because of the notification rule ${ruleNames}. Turn rule mails off for yourself at ${mailLink(ctx.config, '/settings/my-notifications')}.`);
  return { subject, body: lines.join('\n') };
}

/** The changed fields by label, old → new, with names (as this reader may see them) for people, groups and linked records. */
async function changesAsSeen(tx: DbOrTx, occurrence: Occurrence, reader: Actor, names: Names): Promise<string[]> {
  const { events, entry } = occurrence;
  const [seen] = events.historyLinks?.length
    ? await historyAsSeen(tx, reader, [{ at: '', action: entry.action, via: entry.via, source: null, actor: null, tokenId: null, changes: entry.changes, auditSeq: null }], events.historyLinks)
    : [{ changes: entry.changes }];
  const custom = Object.keys(seen.changes).some((k) => k.startsWith('customFields.')) ? await definitionsFor(tx, events.module) : [];
  const lines: string[] = [];
  for (const [field, change] of Object.entries(seen.changes)) {
    const label = field.startsWith('customFields.')
      ? (custom.find((d) => `customFields.${d.key}` === field)?.label ?? field.slice(13))
      : (events.fields[field] ?? null);
    if (label === null) continue;
    const show = async (value: unknown): Promise<string> => {
      if (typeof value !== 'string') return plain(value);
      if (events.people?.includes(field)) return names.users.get(value) ?? plain(value);
      if (events.groups?.includes(field)) return names.groups.get(value) ?? plain(value);
      const linked = events.links?.[field] ? findRecordType(events.links[field]) : undefined;
      if (linked) {
        const row = (await recordRows(tx, linked, [value])).get(value);
        return row ? nameAsSeen(reader, linked.module, row, row.title) : '(removed)';
      }
      if (field === (events.statusField ?? 'status') && events.statuses?.[value]) return events.statuses[value];
      return plain(value);
    };
    const [before, after] = [await show(change.before), await show(change.after)];
    lines.push(entry.action === 'create' ? `  ${label}: ${after}` : entry.action === 'delete' ? `  ${label}: ${before}` : `  ${label}: ${before} → ${after}`);
  }
  return lines;
}

onWriteCommitted(afterWrite);
