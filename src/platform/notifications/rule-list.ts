/**
 * The rules of Settings › Notifications as a list: read whole (a few dozen), each in words (what happens, to which
 * records, who is mailed), then searched, filtered, sorted and paged by its list rules; the same rows as CSV.
 */
import type { DbOrTx } from '../../../db/client';
import type { ListRules } from '../http/list-query';
import type { CsvColumn } from '../csv/list-download';
import { platformService } from '../http/installed';
import type { Actor } from '../permissions/permissions';
import { EVENT_LABELS, RULE_EVENTS, recordEvents } from './declarations';
import { describeEvent, eventsOf, listRules, recordTypeLabel, skippedRecipients, type NotificationRule } from './rules';

/** A rule as the list shows it. */
export interface RuleRow {
  rule: NotificationRule;
  when: string;
  records: string;
  mails: string;
  /** Named recipients skipped while deactivated. */
  skipped: string[];
}

export const RULE_STATE_LABELS: Readonly<Record<'on' | 'off', string>> = { on: 'On', off: 'Off' };

/** Every rule in words: recipients by name ('a removed user' for one gone), record types by their labels. */
export async function ruleRows(db: DbOrTx, viewer: Actor): Promise<RuleRow[]> {
  const [rules, people, groupList] = await Promise.all([listRules(db, viewer), platformService('listUsers')(db), platformService('listGroups')(db)]);
  const userNames = new Map(people.map((u) => [u.id, u.name]));
  const groupNames = new Map(groupList.map((g) => [g.id, g.name]));
  const skipped = await skippedRecipients(db, rules);
  return rules.map((r) => {
    const events = eventsOf(r.recordType);
    return {
      rule: r,
      when: describeEvent(r),
      records: events ? recordTypeLabel(events) : r.recordType,
      mails: [
        r.notifyOwner ? 'owner' : '', r.notifyOwnerGroup ? 'owner group' : '',
        ...r.userIds.map((id) => userNames.get(id) ?? 'a removed user'), ...r.groupIds.map((id) => `group ${groupNames.get(id) ?? '(removed)'}`), ...r.addresses,
      ].filter(Boolean).join(', '),
      skipped: skipped.get(r.id) ?? [],
    };
  });
}

/** The record types a rule may watch, by their labels: the Records filter's options. */
export const ruleRecordTypes = (): { value: string; label: string }[] =>
  recordEvents().map((e) => ({ value: e.recordType, label: recordTypeLabel(e) })).sort((a, b) => a.label.localeCompare(b.label));

export const ruleListRules = (): ListRules<RuleRow> => ({
  text: (r) => [r.rule.name, r.when, r.records, r.mails],
  filters: {
    event: { values: RULE_EVENTS, matches: (r, v) => r.rule.event === v },
    recordType: { values: recordEvents().map((e) => e.recordType), matches: (r, v) => r.rule.recordType === v },
    state: { values: Object.keys(RULE_STATE_LABELS), matches: (r, v) => r.rule.enabled === (v === 'on') },
  },
  sorts: { name: (r) => r.rule.name, event: (r) => EVENT_LABELS[r.rule.event], records: (r) => r.records, state: (r) => (r.rule.enabled ? 0 : 1) },
  defaultSort: 'name',
});

export const ruleCsvColumns: CsvColumn<RuleRow>[] = [
  { header: 'Rule', cell: (r) => r.rule.name },
  { header: 'When', cell: (r) => r.when },
  { header: 'Records', cell: (r) => r.records },
  { header: 'Mails', cell: (r) => r.mails },
  { header: 'State', cell: (r) => RULE_STATE_LABELS[r.rule.enabled ? 'on' : 'off'] },
  { header: 'Skipped while deactivated', cell: (r) => r.skipped.join('; ') },
];
