import { Elysia, type Cookie } from 'elysia';
import type { Db } from '../../../../db/client';
import { fieldErrors } from '../../../../views/components/form';
import { attempt, formText } from '../../../platform/http/form-input';
import { renderScreen } from '../../../platform/http/screen';
import { runWrite, type AppContext } from '../../../platform/http/context';
import { AppError } from '../../../platform/core/errors';
import { holdsEveryRight, levelOf, type Actor } from '../../../platform/permissions/permissions';
import { clientAddress, refusalLimiter } from '../../../platform/http/refusals';
import { currentSessionId, safeNext, screenAuth, setSessionCookie } from '../../../platform/http/screen-auth';
import { sessionSettings } from '../../../platform/http/sessions';
import { listGroups } from '../service';
import { finishOidcSignIn, OIDC_MESSAGES, OIDC_SIGN_IN_MINUTES, redirectUriFor, startOidcSignIn } from './oidc';
import type { OidcSettingsInput, OidcSettingsView } from './schema';
import {
  oidcReady, oidcSettings, prepareSignInSettings, withClientSecret, readSignInSettings, saveSignInSettings, setBreakGlass,
} from './settings-service';
import { countBreakGlassAdministrators, ssoOnly } from './break-glass';
import { BreakGlassRefused, OidcSignInFailed, SignInSettingsPage, SsoSignInOption } from './views';

/**
 * The browser's half of a started sign-in: the state, in an HttpOnly cookie scoped to the sign-in paths that lives as
 * long as the sign-in may take. The callback accepts an answer only when its state is this cookie's.
 */
const STATE_COOKIE = 'grc_oidc_state';

function setStateCookie(ctx: AppContext, cookie: Record<string, Cookie<unknown>>, state: string | null) {
  cookie[STATE_COOKIE].set({
    value: state ?? '', httpOnly: true, sameSite: 'lax', secure: ctx.config.COOKIE_SECURE, path: '/sign-in/oidc',
    maxAge: state ? OIDC_SIGN_IN_MINUTES * 60 : 0,
  });
}

/** The sign-in page's "Sign in with <provider>" when OpenID Connect is on (empty otherwise). */
export async function ssoSignInOption(db: Db, next: string): Promise<JSX.Element> {
  const [s, only] = await Promise.all([oidcSettings(db), ssoOnly(db)]);
  return oidcReady(s) ? <SsoSignInOption providerName={s.providerName} next={next} ssoOnly={only} /> : '';
}

const formValues = (body: unknown): OidcSettingsInput => ({
  enabled: formText(body, 'enabled') === 'on',
  providerName: formText(body, 'providerName').slice(0, 80),
  issuer: formText(body, 'issuer').slice(0, 500),
  clientId: formText(body, 'clientId').slice(0, 300),
  clientSecret: formText(body, 'clientSecret').slice(0, 1000),
  emailClaim: formText(body, 'emailClaim').slice(0, 100),
  trustUnverifiedEmail: formText(body, 'trustUnverifiedEmail') === 'on',
  jitEnabled: formText(body, 'jitEnabled') === 'on',
  jitGroupId: formText(body, 'jitGroupId').slice(0, 36),
  ssoOnly: formText(body, 'ssoOnly') === 'on',
});

const shell = (viewer: Actor, csrfToken: string) => ({ title: 'Sign-in', viewer, csrfToken, active: 'sign-in' });

/** Settings › Sign-in, the OpenID Connect sign-in and its callback, and the break-glass mark on a user. */
export const signInPages = (ctx: AppContext) => {
  const page = async (viewer: Actor, csrfToken: string, request: Request, values: OidcSettingsView, extra: { done?: boolean; error?: string; errors?: Record<string, string> } = {}) => (
    <SignInSettingsPage csrfToken={csrfToken} canSave={levelOf(viewer, 'settings:update') === 'all' && holdsEveryRight(viewer)} values={values}
      redirectUri={redirectUriFor(ctx.config.PUBLIC_URL, request)} groups={await listGroups(ctx.db)}
      breakGlassCount={await countBreakGlassAdministrators(ctx.db)} {...extra} />
  );
  return new Elysia({ name: 'module:people:sign-in' })
    .use(screenAuth(ctx))
    .get('/settings/sign-in', async ({ viewer, csrfToken, headers, query, request }) => renderScreen(headers, shell(viewer, csrfToken),
      await page(viewer, csrfToken, request, await readSignInSettings(ctx.db, viewer), { done: query.done === 'saved' })),
    { page: 'settings:read' })
    .post('/settings/sign-in', async ({ viewer, csrfToken, headers, body, redirect, set, request, cookie }) => {
      const input = formValues(body);
      const saved = await attempt(async () => {
        const prepared = await prepareSignInSettings(ctx.db, viewer, input, ctx.config);
        await runWrite(ctx, (tx) => saveSignInSettings(tx, viewer, prepared, currentSessionId(ctx.config, cookie)));
      });
      if (saved.ok) return redirect('/settings/sign-in?done=saved', 303);
      set.status = saved.error.status;
      const stored = await readSignInSettings(ctx.db, viewer);
      const { clientSecret: _typed, ...typed } = input;
      const problems = saved.error.problems;
      return renderScreen(headers, shell(viewer, csrfToken),
        await page(viewer, csrfToken, request, { ...typed, clientSecretSet: stored.clientSecretSet, discoveredAt: stored.discoveredAt }, {
          error: problems.length ? 'Please correct the fields marked below.' : saved.error.message,
          errors: problems.length ? fieldErrors(problems) : { ssoOnly: saved.error.message },
        }));
    }, { page: 'settings:read' })

    .post('/settings/users/:id/break-glass', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => setBreakGlass(tx, viewer, params.id, formText(body, 'breakGlass') === 'on')));
      if (result.ok) return redirect(`/settings/users?done=user-updated`, 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Break-glass not changed', viewer, csrfToken, active: 'users' },
        <BreakGlassRefused message={result.error.message} userId={params.id} />);
    }, { page: 'settings:update' })

    // Sign-in through the identity provider: no session needed; the state (server-side, once) and cookie guard it.
    .get('/sign-in/oidc', async ({ query, cookie, redirect, set, request }) => {
      set.headers['cache-control'] = 'no-store';
      const s = await oidcSettings(ctx.db);
      if (!oidcReady(s)) {
        set.status = 404;
        set.headers['content-type'] = 'text/html; charset=utf-8';
        return <OidcSignInFailed message={OIDC_MESSAGES.notConfigured} />;
      }
      try {
        const { url, state } = await startOidcSignIn(ctx.db, withClientSecret(ctx.config, s), redirectUriFor(ctx.config.PUBLIC_URL, request), safeNext(query.next));
        setStateCookie(ctx, cookie, state);
        return redirect(url, 303);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        set.status = error.status;
        set.headers['content-type'] = 'text/html; charset=utf-8';
        return <OidcSignInFailed message={error.message} />;
      }
    })
    .get('/sign-in/oidc/callback', async ({ cookie, redirect, set, request, server }) => {
      set.headers['cache-control'] = 'no-store';
      set.headers['referrer-policy'] = 'no-referrer';
      const s = await oidcSettings(ctx.db);
      const cookieState = cookie[STATE_COOKIE]?.value;
      setStateCookie(ctx, cookie, null);
      try {
        if (!oidcReady(s)) throw new AppError('NOT_FOUND', OIDC_MESSAGES.notConfigured);
        const signedIn = await finishOidcSignIn(ctx.db, withClientSecret(ctx.config, s), {
          url: new URL(request.url), cookieState: typeof cookieState === 'string' ? cookieState : undefined,
          ip: clientAddress(request, server, ctx.config), refusals: refusalLimiter(ctx),
          sessionHours: (await sessionSettings(ctx.db, ctx.config.SESSION_HOURS)).lifetimeHours,
        });
        setSessionCookie(ctx.config, cookie, signedIn.secret, signedIn.expiresAt);
        return redirect(signedIn.next, 303);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        set.status = error.status;
        set.headers['content-type'] = 'text/html; charset=utf-8';
        return <OidcSignInFailed message={error.message} />;
      }
    });
};
