import { expect } from 'bun:test';
import { bearer, unique } from '../helpers/factories';
import { nameListBehaviour } from '../helpers/name-lists';

/** Risk classifications are a name list: /api/v1/risk-classifications and the Classifications section of Settings › Risk settings. */
nameListBehaviour({
  api: '/api/v1/risk-classifications',
  screen: '/settings/risks',
  anchor: 'classifications',
  aLabel: 'A risk classification',
  label: 'Risk classification',
  recordType: 'risk_classification',
  readScope: 'risks:read',
  recordScopes: ['risks:create', 'risks:delete'],
  countField: 'riskCount',
  used: (n) => `${n} risk${n === 1 ? '' : 's'}`,
  async useEntry(env, token, classificationId) {
    const body = { title: unique('Classified risk'), classificationId, inherentLikelihood: 2, inherentImpact: 2 };
    const res = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body: JSON.stringify(body) }));
    expect(res.status, await res.clone().text()).toBe(201);
    return `/api/v1/risks/${((await res.json()) as { data: { id: string } }).data.id}`;
  },
});
