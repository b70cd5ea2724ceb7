import { createServer, type IncomingMessage, type Server } from 'node:http';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/**
 * A real OpenID provider (the `oidc-provider` package) on loopback, for sign-in tests. It runs in the test's own Bun
 * process: the package warns that Bun is not a supported runtime, but discovery, the authorization endpoint with PKCE,
 * the token endpoint, signed ID tokens and the JWKS all work under Bun 1.4 (the tests below go through every one).
 *
 * Its login page is the test's stand-in for a real identity provider's: it asks for the e-mail address to sign in as,
 * whether that address is verified (or to send no email_verified claim, or to send it as a string), and optionally a
 * `preferred_username`; the answer becomes the account's claims.
 * Consent is given with the login, so one form post ends at the service's callback.
 */
export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The next ID token is issued by a clock this many seconds behind, so it arrives already expired. */
  issueNextIdTokenFromThePast(seconds: number): void;
  close(): Promise<void>;
}

export interface AccountAnswer {
  email: string;
  /**
   * true (the default) or false is sent as the email_verified claim; 'absent' sends no such claim; the strings 'true'
   * and 'false' are sent as strings, as some providers do.
   */
  emailVerified?: boolean | 'absent' | 'true' | 'false';
  preferredUsername?: string;
}

const readBody = async (req: IncomingMessage): Promise<URLSearchParams> => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return new URLSearchParams(text);
};

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startOidcProvider(options: { redirectUris: string[]; host?: string }): Promise<TestProvider> {
  const host = options.host ?? '127.0.0.1';
  const clientId = 'grc-service';
  const clientSecret = `test-secret-${crypto.randomUUID()}`;
  const accounts = new Map<string, Record<string, unknown>>();
  let pastSeconds = 0;

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const issuer = `http://${host}:${port}`;

  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: options.redirectUris,
      response_types: ['code'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: [crypto.randomUUID()] },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 3600 },
    async findAccount(_ctx: KoaContextWithOIDC, id: string) {
      const claims = accounts.get(id);
      return claims ? { accountId: id, claims: async () => ({ sub: id, ...claims }) } : undefined;
    },
  });
  // A provider whose clock is behind: only the token endpoint's next response, which signs the ID token.
  provider.use(async (ctx, next) => {
    if (ctx.path !== '/token' || pastSeconds === 0) return next();
    const realNow = Date.now;
    const offset = pastSeconds * 1000;
    pastSeconds = 0;
    Date.now = () => realNow() - offset;
    try {
      await next();
    } finally {
      Date.now = realNow;
    }
  });

  const callback = provider.callback();
  server.on('request', (req, res) => {
    const match = /^\/interaction\/([\w-]+)$/.exec(req.url ?? '');
    if (!match) return callback(req, res);
    void (async () => {
      try {
        if (req.method === 'GET') {
          await provider.interactionDetails(req, res);
          res.setHeader('content-type', 'text/html; charset=utf-8');
          res.end(`<!doctype html><html lang="en"><head><title>Test identity provider</title></head><body><main>
            <h1>Test identity provider</h1>
            <form method="post" action="/interaction/${escapeHtml(match[1])}">
              <label for="email">Account e-mail</label> <input id="email" name="email" type="email" required>
              <label><input type="checkbox" name="emailVerified" value="true" checked> E-mail verified</label>
              <label for="pu">Preferred username</label> <input id="pu" name="preferredUsername">
              <button type="submit">Continue</button>
            </form></main></body></html>`);
          return;
        }
        const form = await readBody(req);
        const details = await provider.interactionDetails(req, res);
        const email = form.get('email') ?? '';
        const accountId = `acct-${email.toLowerCase()}`;
        // The login form's box sends 'true' (unticked: nothing, false); the other values are the tests' own.
        const asked = form.get('emailVerified');
        const verified = asked === 'absent' ? {} : asked === 'string:true' ? { email_verified: 'true' } : asked === 'string:false' ? { email_verified: 'false' } : { email_verified: asked === 'true' };
        accounts.set(accountId, {
          email, ...verified, name: email.split('@')[0],
          ...(form.get('preferredUsername') ? { preferred_username: form.get('preferredUsername') } : {}),
        });
        const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
      } catch (error) {
        res.statusCode = 400;
        res.end(String(error));
      }
    })();
  });

  return {
    issuer, clientId, clientSecret,
    issueNextIdTokenFromThePast(seconds) {
      pastSeconds = seconds;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * Goes through the provider as a browser would, without one: follows the authorization URL to the login page, posts
 * the account's answer, and follows the provider's redirects (keeping its cookies) until they lead to the service's
 * callback, whose URL is returned (not opened).
 */
export async function authorizeAtProvider(authorizationUrl: string, answer: AccountAnswer, callbackPrefix: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const header of res.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i).trim(), pair.slice(i + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let url = authorizationUrl;
  let init: RequestInit = {};
  for (let hop = 0; hop < 10; hop += 1) {
    if (url.startsWith(callbackPrefix)) return url;
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: cookie() } });
    keep(res);
    init = {};
    const location = res.headers.get('location');
    if (location) {
      url = new URL(location, url).toString();
      continue;
    }
    if (res.status === 200 && /\/interaction\//.test(url)) {
      const body = new URLSearchParams({ email: answer.email, preferredUsername: answer.preferredUsername ?? '' });
      // An unticked box sends nothing (false); 'absent' and 'string:…' are what the provider reads as "no claim" and "a string".
      const verified = answer.emailVerified ?? true;
      if (verified !== false) body.set('emailVerified', verified === true ? 'true' : verified === 'absent' ? 'absent' : `string:${verified}`);
      init = { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      continue;
    }
    throw new Error(`the provider answered ${res.status} at ${url}: ${await res.text()}`);
  }
  throw new Error('too many redirects at the provider');
}
