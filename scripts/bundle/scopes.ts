import type { Permission } from '../../src/platform/permissions/permissions';
import { inParallel, LoaderFailure, type Instance } from './api';
import type { Bundle } from './schema';

/**
 * Specification, "Bundle loader token scopes": the rights a load needs, by module. A bundle needs the rows of the
 * modules it touches (a full bundle: the whole table); Review on Policies only when it records outside approvals.
 */
export function requiredScopes(bundle: Bundle): Permission[] {
  const scopes: Permission[] = [];
  const writeRights = (module: 'risks' | 'controls' | 'policies' | 'compliance') =>
    scopes.push(`${module}:read`, `${module}:create`, `${module}:update`);
  // Risks also for the risk scale: the loader reads it (risks:read) to compare it and to resolve levels.
  if (bundle.risks?.length || bundle.riskScale) writeRights('risks');
  if (bundle.controls?.length) writeRights('controls');
  if (bundle.policies?.length) writeRights('policies');
  if (bundle.policies?.some((p) => p.signatories?.length)) scopes.push('policies:review');
  if (bundle.package) writeRights('compliance');
  if (bundle.classifications?.length || bundle.riskScale) {
    // Classifications and the scale are changed with Settings rights and read with risks:read.
    if (!scopes.includes('risks:read')) scopes.unshift('risks:read');
    scopes.push('settings:create', 'settings:update');
  }
  return scopes;
}

const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * One cheap request per scope that writes nothing: a list read of one row for read rights; for write rights an empty
 * body, which the API refuses with 400 once the token passes (it checks scope and creator's right before the input)
 * and with 403 when it does not.
 */
const PROBES: Record<string, { method: 'GET' | 'POST' | 'PATCH' | 'PUT'; path: string }> = {
  'risks:read': { method: 'GET', path: '/api/v1/risks?pageSize=1' },
  'risks:create': { method: 'POST', path: '/api/v1/risks' },
  'risks:update': { method: 'PATCH', path: `/api/v1/risks/${NIL}` },
  'controls:read': { method: 'GET', path: '/api/v1/controls?pageSize=1' },
  'controls:create': { method: 'POST', path: '/api/v1/controls' },
  'controls:update': { method: 'PATCH', path: `/api/v1/controls/${NIL}` },
  'policies:read': { method: 'GET', path: '/api/v1/policies?pageSize=1' },
  'policies:create': { method: 'POST', path: '/api/v1/policies' },
  'policies:update': { method: 'PATCH', path: `/api/v1/policies/${NIL}` },
  'policies:review': { method: 'POST', path: `/api/v1/policies/${NIL}/approvals` },
  'compliance:read': { method: 'GET', path: '/api/v1/compliance/packages?pageSize=1' },
  'compliance:create': { method: 'POST', path: '/api/v1/compliance/packages' },
  'compliance:update': { method: 'PATCH', path: `/api/v1/compliance/analyses/${NIL}` },
  'settings:create': { method: 'POST', path: '/api/v1/risk-classifications' },
  'settings:update': { method: 'PUT', path: '/api/v1/risk-scale' },
};

/** The scopes of `needed` the token does not pass with (its own scopes, or its creator's rights). */
export async function missingScopes(instance: Instance, needed: readonly Permission[]): Promise<Permission[]> {
  const missing = new Set<Permission>();
  await inParallel(needed, 4, async (scope) => {
    const probe = PROBES[scope];
    if (!probe) throw new Error(`no probe for scope ${scope}`);
    const status = await instance.probe(probe.method, probe.path);
    if (status === 403) missing.add(scope);
    else if (status >= 500) throw new LoaderFailure(`${instance.url} failed while the token's scopes were checked (${probe.method} ${probe.path}: ${status})`);
  });
  return needed.filter((scope) => missing.has(scope));
}

export const missingScopesMessage = (missing: readonly Permission[]) =>
  `the token lacks ${missing.length === 1 ? 'a scope' : `${missing.length} scopes`} the load needs (in its scopes or its creator's rights): ${missing.join(', ')}`;
