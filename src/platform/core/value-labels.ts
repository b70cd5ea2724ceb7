/**
 * Labels of stored values (enum keys), one table for every screen and CSV download: "in_progress" reads "In
 * progress", "non_compliant" "Non-compliant". Keys not listed read as words with the first letter capitalised.
 * Imports accept the label as well as the key (matchAllowed), so a download imports back unchanged.
 */
const LABELS: Record<string, string> = {
  non_compliant: 'Non-compliant',
  partially_compliant: 'Partially compliant',
  not_applicable: 'Not applicable',
  not_assessed: 'Not assessed',
  in_remediation: 'In remediation',
  in_progress: 'In progress',
  vendor_report: 'Vendor report',
  controlTest: 'Control test',
  auditPlan: 'Audit plan',
  auditFinding: 'Audit finding',
  thirdParty: 'Third party',
  businessUnit: 'Business unit',
  no_change: 'No change',
  no_changes: 'No changes',
  changes_required: 'Changes required',
  pass: 'Passed',
  fail: 'Failed',
  partial: 'Partly passed',
};

/** The label people read for a stored value. */
export const valueLabel = (value: string): string =>
  LABELS[value] ?? value.replaceAll('_', ' ').replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`).replace(/^./, (c) => c.toUpperCase());

/** Stored values listed by their labels, as a template's help row or a hint names them: "Planned, In progress, Completed". */
export const valueLabelList = (values: readonly string[]): string => values.map(valueLabel).join(', ');

/** Options of a select of stored values, labelled. */
export const valueOptions = (values: readonly string[]) => values.map((value) => ({ value, label: valueLabel(value) }));
