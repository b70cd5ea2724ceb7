/**
 * Settings › API tokens and the active sessions of Settings › Sessions as lists: read whole (the tokens the reader may
 * see; sessions for administrators), then searched, filtered, sorted and paged by their list rules, and the same rows as
 * CSV (names, labels, times in the reader's zone).
 */
import type { ListRules } from '../../platform/http/list-query';
import type { CsvColumn } from '../../platform/csv/list-download';
import { zonedHeader, zonedTime } from '../../platform/csv/zone';
import { areaLabel } from '../../platform/http/installed';
import type { TokenView } from './schema';
import { lastValidDay } from './service';

export const TOKEN_STATUS_OPTIONS = [
  { value: 'active', label: 'Active' }, { value: 'expired', label: 'Expired' }, { value: 'revoked', label: 'Revoked' },
] as const;

/** A scope as people read it: 'Risks: read'. */
export const scopeLabel = (scope: string): string => {
  const [module, right] = scope.split(':');
  return `${areaLabel(module)}: ${right}`;
};

const expiryDay = (t: TokenView) => lastValidDay(t.expiresAt ? new Date(t.expiresAt) : null);
const time = (at: string | null) => (at ? new Date(at).getTime() : null);

/** Tokens: searched by name, creator and scopes; filtered by status and by creator (only creators of tokens the reader sees). */
export const tokenListRules = (creatorIds: readonly string[]): ListRules<TokenView> => ({
  text: (t) => [t.name, t.createdBy.name, t.createdBy.email, ...t.scopes.map(scopeLabel)],
  filters: {
    status: { values: TOKEN_STATUS_OPTIONS.map((o) => o.value), matches: (t, v) => t.status.toLowerCase() === v },
    createdBy: { values: creatorIds, matches: (t, v) => t.createdBy.id === v },
  },
  sorts: {
    name: (t) => t.name, createdBy: (t) => t.createdBy.name, createdAt: (t) => time(t.createdAt), lastUsedAt: (t) => time(t.lastUsedAt),
    expiresAt: (t) => time(t.expiresAt), status: (t) => t.status,
  },
  defaultSort: '-createdAt',
});

/** The people who created the tokens given, by name: the creator filter's options. */
export const creatorsOf = (tokens: readonly TokenView[]): { value: string; label: string }[] =>
  [...new Map(tokens.map((t) => [t.createdBy.id, `${t.createdBy.name} <${t.createdBy.email}>`])).entries()]
    .map(([value, label]) => ({ value, label })).sort((a, b) => a.label.localeCompare(b.label));

export const tokenCsvColumns = (zone: string): CsvColumn<TokenView>[] => [
  { header: 'Name', cell: (t) => t.name },
  { header: 'Scopes', cell: (t) => t.scopes.map(scopeLabel).join('; ') },
  { header: 'Created by', cell: (t) => `${t.createdBy.name} <${t.createdBy.email}>` },
  { header: zonedHeader('Created', zone), cell: (t) => zonedTime(t.createdAt, zone) },
  { header: zonedHeader('Last used', zone), cell: (t) => zonedTime(t.lastUsedAt, zone) },
  { header: 'Last valid day', cell: (t) => expiryDay(t) ?? 'Never expires' },
  { header: 'Status', cell: (t) => t.status },
];

/**
 * What the sessions list reads of an active session (the people module's `ActiveSession` has these and more): named
 * here so this list does not add a link between the two modules.
 */
interface ListedSession {
  name: string;
  email: string;
  createdAt: string;
  expiresAt: string;
  lastSeenAt: string;
  signedInWith: 'password' | 'oidc';
}

export const SIGN_IN_LABELS: Readonly<Record<ListedSession['signedInWith'], string>> = { password: 'Password', oidc: 'Single sign-on' };

/** Active sessions: searched by the person's name and email; filtered by how they signed in. */
export const sessionListRules: ListRules<ListedSession> = {
  text: (s) => [s.name, s.email],
  filters: { signedInWith: { values: Object.keys(SIGN_IN_LABELS), matches: (s, v) => s.signedInWith === v } },
  sorts: { name: (s) => s.name, createdAt: (s) => time(s.createdAt), lastSeenAt: (s) => time(s.lastSeenAt), expiresAt: (s) => time(s.expiresAt) },
  defaultSort: '-createdAt',
};

export const sessionCsvColumns = (zone: string): CsvColumn<ListedSession>[] => [
  { header: 'Name', cell: (s) => s.name },
  { header: 'Email', cell: (s) => s.email },
  { header: 'Signed in with', cell: (s) => SIGN_IN_LABELS[s.signedInWith] },
  { header: zonedHeader('Signed in', zone), cell: (s) => zonedTime(s.createdAt, zone) },
  { header: zonedHeader('Last request', zone), cell: (s) => zonedTime(s.lastSeenAt, zone) },
  { header: zonedHeader('Expires', zone), cell: (s) => zonedTime(s.expiresAt, zone) },
];
