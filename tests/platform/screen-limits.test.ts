import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { unique } from '../helpers/factories';

let env: TestEnv;
let admin: Browser;

beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

/** A form post with a Content-Length, as a browser sends it. */
const postForm = (path: string, fields: Record<string, string>) => {
  const body = new URLSearchParams({ _csrf: admin.csrf ?? '', ...fields }).toString();
  return env.request(path, {
    method: 'POST', body, redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length), cookie: admin.cookie ?? '' },
  });
};

describe('Screen request size (spec Limits: 1 MB)', () => {
  test('any screen request over 1 MB is refused with 413 before its body is read, naming the REST API', async () => {
    const res = await postForm('/risks', { title: 'x'.repeat(1024 * 1024) });
    expect(res.status).toBe(413);
    const html = await res.text();
    expect(html).toContain('larger than the 1 MB the screens accept');
    expect(html).toContain('POST /api/v1/&lt;area&gt;/import');
  });

  test('a CSV import dialog takes files over 1 MB, up to the documented 10 MB', async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => `${unique('Big import control')} ${i},${'d'.repeat(30)}`);
    const csv = `name,description\n${rows.join('\n')}\n`;
    expect(csv.length).toBeGreaterThan(1024 * 1024);
    const form = new FormData();
    form.append('file', new File([csv], 'big.csv', { type: 'text/csv' }));
    const res = await env.request('/controls/import/check', { method: 'POST', body: form, headers: { cookie: admin.cookie!, 'x-csrf-token': admin.csrf!, 'hx-request': 'true' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html.includes('30000 rows: 30000 to create'), html.slice(0, 300)).toBe(true);
  }, 60_000);

  test('the REST API is not held to the screen limit', async () => {
    const res = await env.request('/api/v1/risks', {
      method: 'POST', body: JSON.stringify({ title: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json', authorization: 'Bearer aat_unknown_token_of_sufficient_length_1234567890' },
    });
    expect(res.status).not.toBe(413);
  });
});
