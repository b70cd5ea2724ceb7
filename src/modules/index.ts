import type { AreasOf } from '../platform/modules/module';
import { manifest as accountReviews } from './accountReviews';
import { manifest as apiTokens } from './apiTokens';
import { manifest as assets } from './assets';
import { manifest as assistant } from './assistant';
import { manifest as audits } from './audits';
import { manifest as assessments } from './assessments';
import { manifest as awareness } from './awareness';
import { manifest as businessUnits } from './businessUnits';
import { manifest as compliance } from './compliance';
import { manifest as controls } from './controls';
import { manifest as customFields } from './customFields';
import { manifest as dataPrivacy } from './dataPrivacy';
import { manifest as evidence } from './evidence';
import { manifest as exceptions } from './exceptions';
import { manifest as incidents } from './incidents';
import { manifest as labels } from './labels';
import { manifest as people } from './people';
import { manifest as policies } from './policies';
import { manifest as projects } from './projects';
import { manifest as risks } from './risks';
import { manifest as search } from './search';
import { manifest as thirdParties } from './thirdParties';

/**
 * Every module of the service, in navigation order within each group. Adding a module: its folder with an
 * index.ts exporting its manifest, and one line here (docs/adding-a-module.md).
 */
export const MODULES = [
  risks, exceptions, controls, compliance, evidence, policies, assets, businessUnits, thirdParties, incidents, audits, projects, accountReviews, dataPrivacy,
  awareness, assessments,
  people, apiTokens, customFields, labels, assistant, search,
] as const;

// The permission areas these manifests declare make the platform's `Module` and `Permission` types (named outside
// the block: inside it, MODULES would be the platform's own list).
type ModuleList = typeof MODULES;
declare module '../platform/permissions/permissions' {
  interface InstalledAreas extends AreasOf<ModuleList> {}
}
