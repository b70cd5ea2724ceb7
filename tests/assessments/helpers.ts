import { expect } from 'bun:test';
import type { TestEnv } from '../helpers/app';
import { bearer, unique } from '../helpers/factories';

/** Requests of the assessments tests: the API with a token, and the public page as a browser without a session sends it. */
export function assessmentClient(env: TestEnv, token: string) {
  const send = (method: string, path: string, body?: unknown, secret = token) =>
    env.request(path, bearer(secret, body === undefined ? { method } : { method, body: JSON.stringify(body) }));
  const data = async <T>(res: Response): Promise<T> => {
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return ((await res.json()) as { data: T }).data;
  };
  const shipped = async (key: string) => {
    const page = await data<{ rows: { id: string; shippedKey: string | null }[] }>(await send('GET', '/api/v1/assessments/templates?pageSize=200'));
    return page.rows.find((r) => r.shippedKey === key)!.id;
  };
  const thirdParty = async (name = unique('Vendor')) => (await data<{ id: string }>(await send('POST', '/api/v1/third-parties', { name }))).id;
  const sendRequest = async (body: Record<string, unknown>) =>
    data<{ id: string; url: string; expiresAt: string }>(await send('POST', '/api/v1/assessments/requests', { respondentEmail: 'security@vendor.example', dueOn: '2099-12-31', ...body }));
  return { send, data, shipped, thirdParty, sendRequest };
}

/** The path of a link the API handed out. */
export const pathOf = (url: string) => new URL(url).pathname;

/** Opens the public page without a session: its HTML and the form's CSRF cookie and token. */
export async function openPage(env: TestEnv, path: string): Promise<{ res: Response; html: string; cookie: string; csrf: string; revision: string }> {
  const res = await env.request(path);
  const html = await res.text();
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0];
  const csrf = /name="_assess_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const revision = /name="revision" value="(\d+)"/.exec(html)?.[1] ?? '';
  return { res, html, cookie, csrf, revision };
}

/** Posts the public form as a browser would (multipart), answers as field name → value(s) or a File. */
export function postForm(env: TestEnv, path: string, page: { cookie: string; csrf: string; revision: string }, fields: Record<string, string | string[] | File>, action: 'save' | 'submit') {
  const form = new FormData();
  form.set('_assess_csrf', page.csrf);
  form.set('revision', page.revision);
  form.set('action', action);
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) for (const v of value) form.append(name, v);
    else form.set(name, value);
  }
  return env.request(path, { method: 'POST', body: form, headers: { cookie: page.cookie }, redirect: 'manual' });
}

/** Every required answer of the vendor security questionnaire, with a certificate attached. */
export const VENDOR_ANSWERS = (certificate: File): Record<string, string | string[] | File> => ({
  'a-hasCertification': 'yes', 'f-certificate': certificate, 'a-securityContact': 'Ada Lovelace, security@vendor.example',
  'a-mfa': 'yes', 'a-encryption': ['atRest', 'inTransit'], 'a-dataLocation': 'elsewhere', 'a-subprocessors': '3',
  'a-incident': 'no', 'a-notifyHours': '48', 'a-restoreTested': '2026-09-30',
});

export const pdf = (name = 'iso27001.pdf', body = '%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n') => new File([body], name, { type: 'application/pdf' });
