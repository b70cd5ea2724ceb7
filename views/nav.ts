import type { Permission } from '../src/platform/permissions';

export interface MainLink {
  key: string;
  href: string;
  label: string;
  /** The read permission that opens the register. */
  needs: Permission;
}

/** The main navigation, in the order people work through a GRC programme. One line per register screen. */
export const MAIN_LINKS: MainLink[] = [
  { key: 'risks', href: '/risks', label: 'Risks', needs: 'risks:read' },
  { key: 'riskExceptions', href: '/risks/exceptions', label: 'Risk exceptions', needs: 'risks:read' },
  { key: 'controls', href: '/controls', label: 'Controls', needs: 'controls:read' },
  { key: 'compliance', href: '/compliance/packages', label: 'Compliance', needs: 'compliance:read' },
  { key: 'policies', href: '/policies', label: 'Policies', needs: 'policies:read' },
  { key: 'policyExceptions', href: '/policies/exceptions', label: 'Policy exceptions', needs: 'policies:read' },
  { key: 'assets', href: '/assets', label: 'Assets', needs: 'assets:read' },
  { key: 'businessUnits', href: '/business-units', label: 'Business units', needs: 'businessUnits:read' },
  { key: 'incidents', href: '/incidents', label: 'Incidents', needs: 'incidents:read' },
  { key: 'audits', href: '/audits', label: 'Audits', needs: 'audits:read' },
  { key: 'thirdParties', href: '/third-parties', label: 'Third parties', needs: 'thirdParties:read' },
  { key: 'projects', href: '/projects', label: 'Projects', needs: 'projects:read' },
  { key: 'accountReviews', href: '/account-reviews', label: 'Account reviews', needs: 'accountReviews:read' },
  { key: 'poam', href: '/compliance/poam', label: 'POA&M', needs: 'compliance:read' },
];
