import { beforeAll, describe, expect, test } from 'bun:test';
import { API_BODY_LIMIT, API_TOO_LARGE, CSV_TOO_LARGE, MAX_BODY_DEPTH, SCREEN_REQUEST_LIMIT, TOO_DEEP } from '../../src/platform/http/screen-limits';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, classificationId, makeToken, unique } from '../helpers/factories';

let env: TestEnv;
let admin: Browser;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  token = await makeToken(env, await adminActor(env), ['risks:create', 'risks:read']);
});

/** A body of `total` bytes sent without a Content-Length (chunked), counting how much of it was ever read. */
function streamedBody(total: number, chunk = 64 * 1024) {
  const piece = new Uint8Array(chunk).fill(0x61); // 'a'
  const progress = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (progress.pulled >= total) return controller.close();
      progress.pulled += piece.byteLength;
      controller.enqueue(piece);
    },
  });
  return { body, progress };
}

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

describe('Bodies are counted as they arrive (chunked bodies have no Content-Length)', () => {
  test('a chunked screen request of 50 MB is refused 413 after the first 1 MB, not read whole', async () => {
    const { body, progress } = streamedBody(50 * 1024 * 1024);
    const res = await env.request('/risks', {
      method: 'POST', body, duplex: 'half',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: admin.cookie!, 'x-csrf-token': admin.csrf! },
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.text()).toContain('larger than the 1 MB the screens accept');
    // Read up to the limit, and no further.
    expect(progress.pulled).toBeGreaterThan(SCREEN_REQUEST_LIMIT);
    expect(progress.pulled).toBeLessThan(SCREEN_REQUEST_LIMIT + 4 * 64 * 1024);
  });

  test(`a chunked API request over the documented ${API_BODY_LIMIT / 1024 / 1024} MB is refused 413 with the error envelope, as it streams`, async () => {
    const { body, progress } = streamedBody(API_BODY_LIMIT + 8 * 1024 * 1024);
    const res = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body, duplex: 'half' } as RequestInit));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: API_TOO_LARGE });
    expect(progress.pulled).toBeGreaterThan(API_BODY_LIMIT);
    expect(progress.pulled).toBeLessThan(API_BODY_LIMIT + 4 * 64 * 1024);
  });

  test('an API request whose Content-Length is over the limit is refused before its body is read', async () => {
    const res = await env.request('/api/v1/risks', bearer(token, {
      method: 'POST', body: '{}', headers: { 'content-length': String(API_BODY_LIMIT + 1) },
    }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: API_TOO_LARGE });
  });

  test('a chunked CSV import through the API of 40 MB is cut off soon after its 10 MB file rule', async () => {
    const { body, progress } = streamedBody(40 * 1024 * 1024);
    const res = await env.request('/api/v1/risks/import?mode=check', bearer(token, {
      method: 'POST', body, duplex: 'half', headers: { 'content-type': 'text/csv' },
    } as RequestInit));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: CSV_TOO_LARGE });
    expect(progress.pulled).toBeLessThan(12 * 1024 * 1024);
  });

  test('a chunked CSV import through the API is read in full up to its 10 MB file rule', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `${unique('Chunked risk')} ${i},Operational,3,2`);
    const csv = new TextEncoder().encode(`title,classification,inherent_likelihood,inherent_impact\n${rows.join('\n')}\n`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < csv.length; i += 1000) controller.enqueue(csv.slice(i, i + 1000));
        controller.close();
      },
    });
    const res = await env.request('/api/v1/risks/import?mode=check', bearer(token, {
      method: 'POST', body, duplex: 'half', headers: { 'content-type': 'text/csv' },
    } as RequestInit));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { data: { counts: { create: number } } }).data.counts.create).toBe(200);
  });
});

describe(`Bodies nested deeper than ${MAX_BODY_DEPTH} levels are refused before validation`, () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

  test('JSON nested 5,000 deep answers 400 naming the limit, not 500', async () => {
    const res = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body: `{"title":"deep","x":${nested(5000)}}` }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe(TOO_DEEP);
  });

  test('arrays nested 200,000 deep answer 400', async () => {
    const res = await env.request('/api/v1/risks', bearer(token, { method: 'POST', body: `${'['.repeat(200_000)}${']'.repeat(200_000)}` }));
    expect(res.status).toBe(400);
  });

  test(`at exactly ${MAX_BODY_DEPTH} levels the body reaches validation, which names the field`, async () => {
    const res = await env.request('/api/v1/risks', bearer(token, {
      method: 'POST', body: JSON.stringify({ title: 'ok depth', classificationId: await classificationId(env), inherentLikelihood: 1, inherentImpact: 1, x: JSON.parse(nested(MAX_BODY_DEPTH - 1)) }),
    }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('x: Unexpected property');
  });

  test('a screen form whose field names nest deeper than the limit answers 400', async () => {
    const form = new FormData();
    form.append(Array.from({ length: 40 }, () => 'a').join('.'), 'x');
    const res = await env.request('/risks', { method: 'POST', body: form, headers: { cookie: admin.cookie!, 'x-csrf-token': admin.csrf! } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('nested deeper than');
  });
});
