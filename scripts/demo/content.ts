/**
 * The fictional company of the demonstration data (Harbourline Logistics, a mid-sized freight forwarder) and the
 * texts its records carry. Every name, address and number here is invented; addresses use the reserved
 * demo.example domain so no mail can reach anyone.
 */

export const DEMO_DOMAIN = 'demo.example';
/** The name the demonstration's branding shows. */
export const DEMO_ORGANISATION = 'Harbourline Logistics';

export interface DemoPersonSpec {
  name: string;
  local: string;
  /** The group the person joins; `Administrators` is the built-in one. */
  group: string;
}

export const PEOPLE: readonly DemoPersonSpec[] = [
  { name: 'Avery Lindqvist', local: 'avery.lindqvist', group: 'Administrators' },
  { name: 'Priya Raman', local: 'priya.raman', group: 'Risk Office' },
  { name: 'Tomasz Wójcik', local: 'tomasz.wojcik', group: 'Security Operations' },
  { name: 'Grace Okafor', local: 'grace.okafor', group: 'Compliance Office' },
  { name: 'Mateo Alvarez', local: 'mateo.alvarez', group: 'Internal Audit' },
];

/** Groups and the role each holds: the built-in roles where one fits, a Compliance Officer role made here. */
export const GROUPS: readonly { name: string; description: string; role: string }[] = [
  { name: 'Risk Office', description: 'Owns the risk register and its treatments.', role: 'Risk Manager' },
  { name: 'Security Operations', description: 'Runs the controls and handles incidents.', role: 'Contributor' },
  { name: 'Compliance Office', description: 'Frameworks, policies, evidence and third parties.', role: 'Compliance Officer' },
  { name: 'Internal Audit', description: 'Reads every register; plans audits, records findings, runs account reviews.', role: 'Internal Auditor' },
];

/** Roles made by the demonstration data: every right at level all on these modules, and read on every register. */
export const MADE_ROLES: readonly { name: string; description: string; modules: readonly string[] }[] = [
  { name: 'Compliance Officer', description: 'Frameworks, policies, evidence, third parties and projects; reads the other registers.', modules: ['compliance', 'policies', 'evidence', 'thirdParties', 'projects'] },
  { name: 'Internal Auditor', description: 'Audit plans, findings and account reviews; reads every register.', modules: ['audits', 'accountReviews'] },
];

export const BUSINESS_UNITS: readonly { name: string; description: string; children: readonly string[] }[] = [
  { name: 'Operations', description: 'Warehousing, freight and customs brokerage.', children: ['Warehousing', 'Freight forwarding', 'Customs brokerage'] },
  { name: 'Technology', description: 'Internal IT, the customer portal and data platforms.', children: ['Infrastructure', 'Customer portal'] },
  { name: 'Corporate', description: 'Finance, people and legal.', children: ['Finance', 'People & Culture'] },
];

/** Assets, each with the business unit that runs it. */
export const ASSETS: readonly { name: string; description: string; unit: string }[] = [
  { name: 'Warehouse management system', description: 'Stock, picking and dock scheduling for all sites.', unit: 'Warehousing' },
  { name: 'Customer shipment portal', description: 'Public web portal where customers book and track shipments.', unit: 'Customer portal' },
  { name: 'Customs declaration gateway', description: 'Connection to the customs authorities for electronic declarations.', unit: 'Customs brokerage' },
  { name: 'Payroll and HR system', description: 'Hosted HR suite with employee records and payroll.', unit: 'People & Culture' },
  { name: 'ERP finance ledger', description: 'General ledger, invoicing and payments.', unit: 'Finance' },
  { name: 'Identity provider', description: 'Single sign-on and multi-factor authentication for staff.', unit: 'Infrastructure' },
  { name: 'Data centre (Rotterdam colocation)', description: 'Racks in a shared colocation facility.', unit: 'Infrastructure' },
  { name: 'Fleet telematics platform', description: 'Vehicle positions and driver logs from trucks.', unit: 'Freight forwarding' },
];

/** Controls: [ref, name, type, description, test months]. Enough for the small size; the large size repeats them per site. */
export const CONTROLS: readonly [string, string, 'policy' | 'process' | 'technical' | 'physical', string, number | null][] = [
  ['AC-2', 'Account management', 'process', 'Accounts are requested, approved by the manager, reviewed quarterly and removed on leaving.', 3],
  ['AC-6', 'Least privilege', 'technical', 'Administrative rights only through named privileged accounts with approval.', 6],
  ['AC-7', 'Unsuccessful sign-in attempts', 'technical', 'Accounts lock for 15 minutes after ten failed sign-ins.', 12],
  ['IA-2', 'Multi-factor authentication', 'technical', 'Every staff and remote sign-in uses a second factor through the identity provider.', 6],
  ['AT-2', 'Security awareness training', 'process', 'Annual training and quarterly phishing exercises for all staff.', 12],
  ['AU-2', 'Event logging', 'technical', 'Security events of servers and SaaS tools go to the central log platform.', 6],
  ['AU-6', 'Log review', 'process', 'Alerts from the log platform are triaged daily by Security Operations.', 3],
  ['CM-2', 'Baseline configuration', 'technical', 'Servers and laptops are built from hardened, versioned baselines.', 12],
  ['CM-3', 'Change control', 'process', 'Production changes are ticketed, peer-reviewed and approved by the change board.', 6],
  ['CP-9', 'System backup', 'technical', 'Nightly encrypted backups kept 35 days, one copy off-site.', 3],
  ['CP-10', 'Restore testing', 'process', 'A full restore of a critical system is tested every quarter.', 3],
  ['IR-4', 'Incident handling', 'process', 'Incidents follow the runbook: triage, containment, eradication, recovery, lessons learned.', 12],
  ['IR-6', 'Incident reporting', 'process', 'Personal-data breaches are assessed within 24 hours and reported within 72 hours when required.', 12],
  ['MP-6', 'Media sanitisation', 'physical', 'Disks are wiped or shredded by a certified vendor, with certificates kept.', 12],
  ['PE-3', 'Physical access control', 'physical', 'Badge access to offices and warehouses; visitor log at reception.', 12],
  ['PL-4', 'Rules of behaviour', 'policy', 'Staff accept the acceptable use policy on joining and every year.', 12],
  ['RA-5', 'Vulnerability scanning', 'technical', 'Weekly authenticated scans of servers and the portal; critical findings fixed in 14 days.', 1],
  ['SA-9', 'External system services', 'process', 'Vendors with access to data pass a security assessment before contract and yearly.', 12],
  ['SC-7', 'Boundary protection', 'technical', 'Firewalls and a web application firewall in front of every internet-facing system.', 6],
  ['SC-8', 'Transmission confidentiality', 'technical', 'TLS 1.2 or later for all external connections; HSTS on the portal.', 12],
  ['SC-28', 'Protection of information at rest', 'technical', 'Databases and laptops are encrypted at rest with managed keys.', 12],
  ['SI-2', 'Flaw remediation', 'process', 'Security patches applied within 14 days (critical: 72 hours).', 1],
  ['SI-3', 'Malicious code protection', 'technical', 'Endpoint detection and response on every laptop and server.', 6],
  ['SI-4', 'System monitoring', 'technical', 'Network and endpoint monitoring with alerting to the on-call analyst.', 6],
  ['SR-3', 'Supply chain controls', 'process', 'Critical suppliers are tiered and their sub-processors tracked.', 12],
  ['PR-1', 'Privacy by design review', 'process', 'New processing of personal data gets a privacy review before launch.', 12],
  ['PR-2', 'Records of processing', 'policy', 'The record of processing activities is kept current by the privacy lead.', 6],
  ['PR-3', 'Data subject requests', 'process', 'Access and erasure requests answered within one month, tracked in the ticket queue.', 6],
  ['PR-4', 'Data retention', 'process', 'Personal data is deleted when its retention period ends; yearly purge report.', 12],
  ['PR-5', 'Data processing agreements', 'policy', 'Every processor signs a data processing agreement with standard contractual clauses where needed.', 12],
];

/**
 * Risks: [title, description, classification, inherent L, I, residual L, I, control refs, asset (or null)].
 * Titles begin with a ref, as the bundle loader expects.
 */
export const RISKS: readonly [string, string, string, number, number, number, number, readonly string[], string | null][] = [
  ['Ransomware encrypts warehouse systems', 'A ransomware infection spreads from a laptop to the warehouse management system and stops picking for days.', 'Information security', 4, 5, 2, 4, ['CP-9', 'CP-10', 'SI-3', 'SI-2'], 'Warehouse management system'],
  ['Customer portal account takeover', 'Credential stuffing against the shipment portal exposes customer shipment data.', 'Information security', 4, 4, 2, 3, ['AC-7', 'SC-7', 'SI-4'], 'Customer shipment portal'],
  ['Phishing leads to payment fraud', 'A spoofed supplier email changes bank details and a payment goes to a fraudster.', 'Financial', 4, 4, 3, 3, ['AT-2', 'IA-2'], 'ERP finance ledger'],
  ['Customs gateway outage delays shipments', 'The customs declaration gateway is unavailable and containers wait at the port.', 'Operational', 3, 4, 2, 3, ['CP-9', 'CM-3'], 'Customs declaration gateway'],
  ['Personal data breach at payroll provider', 'The hosted HR suite is breached and employee bank and tax details leak.', 'Compliance', 2, 5, 2, 4, ['SA-9', 'PR-5', 'IR-6'], 'Payroll and HR system'],
  ['Unpatched internet-facing servers', 'Known vulnerabilities on internet-facing servers are exploited before patches are applied.', 'Information security', 4, 4, 2, 3, ['RA-5', 'SI-2', 'SC-7'], null],
  ['Former employees keep access', 'Leavers keep access to SaaS tools because accounts are not removed on time.', 'Information security', 3, 3, 2, 2, ['AC-2'], 'Identity provider'],
  ['Excessive administrator rights', 'Too many staff hold administrator rights, so one compromised account reaches everything.', 'Information security', 3, 4, 2, 3, ['AC-6', 'AU-6'], 'Identity provider'],
  ['Data retention beyond legal limits', 'Shipment records with personal data are kept longer than the retention schedule allows.', 'Compliance', 3, 3, 2, 3, ['PR-4', 'PR-2'], null],
  ['Late breach notification to the authority', 'A personal-data breach is not assessed in time and the 72-hour deadline is missed.', 'Compliance', 2, 4, 1, 4, ['IR-4', 'IR-6'], null],
  ['Colocation power failure', 'A power failure at the colocation facility takes down the on-premises systems.', 'Operational', 2, 4, 2, 3, ['CP-9', 'CP-10'], 'Data centre (Rotterdam colocation)'],
  ['Telematics vendor insolvency', 'The fleet telematics vendor fails and vehicle tracking stops without notice.', 'Strategic', 2, 3, 2, 3, ['SA-9', 'SR-3'], 'Fleet telematics platform'],
  ['Unencrypted laptop lost', 'A laptop holding customer lists is lost in transit and its disk is not encrypted.', 'Information security', 3, 3, 3, 1, ['SC-28', 'CM-2'], null],
  ['Unauthorised warehouse entry', 'Someone without a badge enters a warehouse and removes high-value goods.', 'Operational', 3, 3, 2, 2, ['PE-3'], null],
  ['Failed change breaks the portal', 'An untested release takes the customer portal down during peak season.', 'Operational', 3, 3, 2, 2, ['CM-3', 'CM-2'], 'Customer shipment portal'],
  ['Sub-processor outside the EEA without safeguards', 'A vendor moves processing to a sub-processor outside the EEA without transfer safeguards.', 'Compliance', 2, 4, 2, 3, ['PR-5', 'SR-3'], null],
  ['Security events go unnoticed', 'Alerts are not reviewed and an intrusion continues for weeks.', 'Information security', 3, 4, 2, 3, ['AU-2', 'AU-6', 'SI-4'], null],
  ['Data subject requests answered late', 'Access requests are missed in the shared mailbox and answered after the deadline.', 'Compliance', 3, 2, 2, 2, ['PR-3'], null],
  ['Key person dependency in customs brokerage', 'Only two licensed brokers know the declaration process.', 'Strategic', 3, 3, 3, 3, [], 'Customs declaration gateway'],
  ['Fuel price shock', 'A sharp rise in diesel prices erodes margins on fixed-price contracts.', 'Financial', 3, 3, 3, 3, [], null],
];

/** Policies: [title, description, content paragraphs, published]. */
export const POLICIES: readonly [string, string, string, boolean][] = [
  ['Information security policy', 'Management direction for information security.', 'Harbourline protects the confidentiality, integrity and availability of the information it handles for customers and staff.\n\nThe Chief Information Security Officer owns this policy and reports on it to the board every quarter.', true],
  ['Acceptable use policy', 'How staff may use company devices, accounts and networks.', 'Company devices are for business use; limited personal use is allowed when it does not affect work or security.\n\nNever share passwords or sign-in codes, and report a lost device to the service desk at once.', true],
  ['Access control policy', 'Who may access what, and how access is granted and removed.', 'Access follows least privilege and is approved by the information owner.\n\nAccess is reviewed every quarter and removed on the day a person leaves.', true],
  ['Data protection policy', 'Processing personal data lawfully under the GDPR.', 'Personal data is processed only for documented purposes and kept no longer than the retention schedule allows.\n\nBreaches are reported to the privacy lead immediately.', true],
  ['Incident response policy', 'Roles and steps for handling security incidents.', 'Security Operations leads the response; the privacy lead decides on notification of personal-data breaches within 72 hours.', true],
  ['Supplier security policy', 'Security requirements for vendors and partners.', 'Vendors that handle our data pass a security assessment before contract and every year, and sign a data processing agreement.', true],
  ['Business continuity policy', 'Keeping freight moving when systems or sites fail.', 'Critical services have recovery objectives; backups and restores are tested every quarter.', false],
  ['Clean desk and clear screen standard', 'Paper and screens in offices and warehouses.', 'Lock the screen when leaving the desk; keep customs papers in locked cabinets.', false],
];

/** Third parties: [name, type, description, website, contact name, contact role]. */
export const THIRD_PARTIES: readonly [string, 'vendor' | 'partner' | 'customer', string, string, string, string][] = [
  ['Northwind Payroll Ltd', 'vendor', 'Hosted HR and payroll suite (processor of employee data).', 'https://northwind-payroll.example', 'Hannah Ellis', 'Account manager'],
  ['Bluefin Telematics BV', 'vendor', 'Fleet telematics platform and in-cab devices.', 'https://bluefin-telematics.example', 'Joost de Vries', 'Customer success lead'],
  ['Cirrus Colocation BV', 'vendor', 'Colocation racks in Rotterdam.', 'https://cirrus-colo.example', 'Ilse Bakker', 'Service delivery manager'],
  ['Meridian Cloud Services', 'vendor', 'Infrastructure hosting for the customer portal (sub-processor of Northwind).', 'https://meridian-cloud.example', 'Sam Patel', 'Technical account manager'],
  ['Atlas Port Agents', 'partner', 'Port agency partner for deep-sea consolidations.', 'https://atlas-port.example', 'Lena Hoffmann', 'Operations director'],
  ['Brightside Retail Group', 'customer', 'Largest retail customer; audits our controls every year.', 'https://brightside-retail.example', 'Oliver Grant', 'Supplier assurance lead'],
];

export const PROJECTS: readonly [string, string, 'planned' | 'in_progress' | 'completed', number][] = [
  ['Roll out multi-factor authentication to warehouse kiosks', 'Replace shared kiosk accounts with named accounts and a second factor.', 'in_progress', 60],
  ['GDPR records of processing refresh', 'Interview process owners and update the record of processing activities.', 'in_progress', 45],
  ['Backup platform replacement', 'Move to immutable off-site backups.', 'planned', 150],
  ['Portal web application firewall', 'Put the customer portal behind a managed WAF.', 'completed', -30],
];

export const INCIDENT_CLASSIFICATIONS: readonly [string, string][] = [
  ['Personal data breach', 'A breach of security leading to the loss or disclosure of personal data.'],
  ['Malware', 'Malicious software detected on a device or server.'],
  ['Service outage', 'A system used by customers or operations is unavailable.'],
  ['Phishing', 'A phishing email reached staff, clicked or not.'],
];

export const LABELS: readonly [string, string, string][] = [
  ['Customer audit', '#1565c0', 'Asked for in a customer audit.'],
  ['Board reporting', '#6a1b9a', 'Reported to the board every quarter.'],
  ['Peak season', '#ef6c00', 'Matters most from October to December.'],
];

/** Sites the large size names its generated controls and risks after. */
export const SITES = ['Rotterdam', 'Antwerp', 'Hamburg', 'Felixstowe', 'Gdańsk', 'Le Havre', 'Valencia', 'Genoa', 'Piraeus', 'Gothenburg'];
