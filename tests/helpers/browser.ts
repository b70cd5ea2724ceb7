import type { TestEnv } from '../helpers/app';

/** A minimal cookie-keeping browser over env.request, for screen tests. */
export interface Browser {
  cookie: string | null;
  csrf: string | null;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, form: Record<string, string | string[]>, options?: { csrf?: boolean; headers?: Record<string, string> }): Promise<Response>;
}

export interface ParsedCookie {
  name: string;
  value: string;
  attributes: Map<string, string>;
}

export function parseSetCookie(header: string): ParsedCookie {
  const [pair, ...rest] = header.split(';').map((part) => part.trim());
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const i = part.indexOf('=');
    attributes.set((i < 0 ? part : part.slice(0, i)).toLowerCase(), i < 0 ? '' : part.slice(i + 1));
  }
  return { name: pair.slice(0, eq), value: decodeURIComponent(pair.slice(eq + 1)), attributes };
}

export const sessionCookieOf = (res: Response): ParsedCookie | undefined =>
  res.headers.getSetCookie().map(parseSetCookie).find((c) => c.name === 'grc_session');

const CSRF_PATTERN = /name="_csrf" value="([^"]+)"/;

export function browser(env: TestEnv): Browser {
  const b: Browser = {
    cookie: null,
    csrf: null,
    async get(path, headers = {}) {
      const res = await env.request(path, { headers: { ...(b.cookie ? { cookie: b.cookie } : {}), ...headers }, redirect: 'manual' });
      remember(res);
      return res;
    },
    async post(path, form, options = {}) {
      const body = new URLSearchParams();
      for (const [key, value] of Object.entries(form)) for (const v of [value].flat()) body.append(key, v);
      if (options.csrf !== false && b.csrf) body.append('_csrf', b.csrf);
      const res = await env.request(path, {
        method: 'POST',
        body: body.toString(),
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(b.cookie ? { cookie: b.cookie } : {}), ...options.headers },
      });
      remember(res);
      return res;
    },
  };
  function remember(res: Response) {
    const session = sessionCookieOf(res);
    if (session) b.cookie = session.value ? `grc_session=${session.value}` : null;
  }
  return b;
}

/** Signs in through the form and picks the CSRF token off a page, as a browser would. */
export async function signedInBrowser(env: TestEnv, email: string, password: string): Promise<Browser> {
  const b = browser(env);
  const res = await b.post('/sign-in', { email, password, next: '/settings' });
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const page = await b.get('/settings');
  const match = CSRF_PATTERN.exec(await page.text());
  if (!match) throw new Error(`no CSRF token on /settings (status ${page.status})`);
  b.csrf = match[1];
  return b;
}
