import { Elysia } from 'elysia';
import { listUsers } from '../service';
import { runWrite, type AppContext } from '../../../platform/http/context';
import { AppError, forbidden } from '../../../platform/core/errors';
import { levelOf } from '../../../platform/permissions/permissions';
import { clientAddress, refusalLimiter } from '../../../platform/http/refusals';
import { cookieSecret, currentSessionId, screenAuth, setSessionCookie } from '../../../platform/http/screen-auth';
import { resolveSession, retryAfterSeconds, sessionSettings, THROTTLE_WINDOW_MINUTES } from '../../../platform/http/sessions';
import { fieldErrors } from '../../../../views/components/form';
import { attempt, formText } from '../../../platform/http/form-input';
import { renderScreen } from '../../../platform/http/screen';
import { sameOrigin } from '../pages';
import { clearPendingCookie, pendingSecret } from './gate';
import {
  beginEnrolment, cancelPendingSignIn, completeWithCode, completeWithEnrolment, confirmEnrolment, disableTwoFactor,
  enrolmentForPending, enrolmentInProgress, isAdministrator, pendingSignIn, PENDING_GONE, regenerateRecoveryCodes,
  resetTwoFactor, setTwoFactorRule, twoFactorRule, twoFactorStatus,
} from './service';
import {
  CodeStepPage, ConfirmEnrolmentForm, EnrolledPage, EnrolmentQr, EnrolStepPage, RecoveryCodes, TwoFactorSettings, TwoFactorUserContent,
} from './views';

const TITLE = 'Two-factor sign-in';

/**
 * Two-factor sign-in: one's own enrolment at /settings/two-factor, the rule on Settings › Sessions, an administrator's
 * reset from a user's Edit page, and the sign-in step after the password (no session yet: the pending sign-in's
 * cookie is the credential, and forms from another site are refused).
 */
export const twoFactorPages = (ctx: AppContext) => {
  const settingsPage = async (viewer: Parameters<typeof isAdministrator>[0], csrfToken: string, headers: Record<string, string | undefined>, extra: { done?: string; errors?: Record<string, string>; error?: string } = {}) => {
    const [status, rule] = await Promise.all([twoFactorStatus(ctx.db, viewer.userId!), twoFactorRule(ctx.db)]);
    const required = rule === 'everyone' || (rule === 'administrators' && isAdministrator(viewer));
    return renderScreen(headers, { title: TITLE, viewer, csrfToken }, <TwoFactorSettings csrfToken={csrfToken} status={status} rule={rule} required={required} {...extra} />);
  };
  const enrolmentPage = (viewer: Parameters<typeof isAdministrator>[0], csrfToken: string, headers: Record<string, string | undefined>, enrolment: Parameters<typeof EnrolmentQr>[0]['enrolment'], error?: string) =>
    renderScreen(headers, { title: 'Set up two-factor sign-in', viewer, csrfToken }, (
      <section id="two-factor">
        <div class="card">
          <EnrolmentQr enrolment={enrolment} />
          <ConfirmEnrolmentForm action="/settings/two-factor/confirm" csrfToken={csrfToken} error={error} />
        </div>
      </section>
    ));
  const sessionHours = async () => (await sessionSettings(ctx.db, ctx.config.SESSION_HOURS)).lifetimeHours;
  const bare = (set: { headers: Record<string, unknown> }) => {
    set.headers['content-type'] = 'text/html; charset=utf-8';
    set.headers['cache-control'] = 'no-store';
  };

  return new Elysia({ name: 'module:people:two-factor' })
    .use(screenAuth(ctx))
    /* ----- One's own second factor ----- */
    .get('/settings/two-factor', ({ viewer, csrfToken, headers, query }) => settingsPage(viewer, csrfToken, headers, { done: query.done }), { page: true })
    .post('/settings/two-factor/begin', async ({ viewer, csrfToken, headers, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => beginEnrolment(tx, viewer, ctx.config)));
      if (result.ok) return enrolmentPage(viewer, csrfToken, headers, result.value);
      set.status = result.error.status;
      return settingsPage(viewer, csrfToken, headers, { error: result.error.message });
    }, { page: true })
    .post('/settings/two-factor/confirm', async ({ viewer, csrfToken, headers, body, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => confirmEnrolment(tx, viewer, formText(body, 'code'), ctx.config)));
      if (result.ok) {
        return renderScreen(headers, { title: 'Two-factor sign-in is on', viewer, csrfToken },
          <RecoveryCodes codes={result.value.recoveryCodes} continueTo="/settings/two-factor?done=enabled" />);
      }
      set.status = result.error.status;
      const enrolment = await enrolmentInProgress(ctx.db, viewer.userId!, ctx.config);
      if (!enrolment) return settingsPage(viewer, csrfToken, headers, { error: result.error.message });
      return enrolmentPage(viewer, csrfToken, headers, enrolment, fieldErrors(result.error.problems).code ?? result.error.message);
    }, { page: true })
    .post('/settings/two-factor/recovery-codes', async ({ viewer, csrfToken, headers, body, set, request, server }) => {
      const result = await attempt(() => regenerateRecoveryCodes(ctx.db, viewer, {
        code: formText(body, 'code'), ip: clientAddress(request, server, ctx.config), refusals: refusalLimiter(ctx),
      }, ctx.config));
      if (result.ok) {
        return renderScreen(headers, { title: 'New recovery codes', viewer, csrfToken },
          <RecoveryCodes codes={result.value.recoveryCodes} continueTo="/settings/two-factor" />);
      }
      set.status = result.error.status;
      const wait = retryAfterSeconds(result.error);
      if (wait !== null) set.headers['retry-after'] = String(wait);
      const errors = fieldErrors(result.error.problems);
      return settingsPage(viewer, csrfToken, headers, { errors: { recoveryCode: errors.code }, error: errors.code ? undefined : result.error.message });
    }, { page: true })
    .post('/settings/two-factor/disable', async ({ viewer, csrfToken, headers, body, set, redirect, request, server }) => {
      const result = await attempt(() => disableTwoFactor(ctx.db, viewer, {
        password: formText(body, 'currentPassword'), code: formText(body, 'code'), ip: clientAddress(request, server, ctx.config),
        refusals: refusalLimiter(ctx),
      }, ctx.config));
      if (result.ok) return redirect('/settings/two-factor?done=disabled', 303);
      set.status = result.error.status;
      const wait = retryAfterSeconds(result.error);
      if (wait !== null) set.headers['retry-after'] = String(wait);
      return settingsPage(viewer, csrfToken, headers, { errors: fieldErrors(result.error.problems), error: result.error.problems.length ? undefined : result.error.message });
    }, { page: true })

    /* ----- The rule (shown on Settings › Sessions) ----- */
    .post('/settings/two-factor/rule', async ({ viewer, body, redirect, cookie }) => {
      await runWrite(ctx, (tx) => setTwoFactorRule(tx, viewer, formText(body, 'twoFactorRule'), currentSessionId(ctx.config, cookie)));
      return redirect('/settings/sessions?done=saved', 303);
    }, { page: 'settings:update' })

    /* ----- An administrator's reset ----- */
    .get('/settings/users/:id/two-factor', async ({ viewer, csrfToken, headers, params, query }) => {
      if (levelOf(viewer, 'settings:update') !== 'all') throw forbidden('settings:update at level all needed to reset a second factor');
      const user = (await listUsers(ctx.db)).find((u) => u.id === params.id);
      if (!user) throw new AppError('NOT_FOUND', 'User not found');
      const { enrolled } = await twoFactorStatus(ctx.db, user.id);
      return renderScreen(headers, { title: `Two-factor sign-in of ${user.name}`, viewer, csrfToken, active: 'users' },
        <TwoFactorUserContent csrfToken={csrfToken} user={user} enrolled={enrolled} done={query.done === 'reset'} />);
    }, { page: 'settings:update' })
    .post('/settings/users/:id/two-factor/reset', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => resetTwoFactor(tx, viewer, params.id));
      return redirect(`/settings/users/${params.id}/two-factor?done=reset`, 303);
    }, { page: 'settings:update' })

    /* ----- The sign-in step ----- */
    .get('/sign-in/two-factor', async ({ cookie, redirect, set }) => {
      bare(set);
      const pending = await pendingSignIn(ctx.db, pendingSecret(ctx.config, cookie));
      if (!pending) return redirect('/sign-in', 303);
      if (pending.step === 'enrol') return redirect('/sign-in/two-factor/enrol', 303);
      return <CodeStepPage email={pending.email} />;
    })
    .post('/sign-in/two-factor', async ({ cookie, body, redirect, set, request, server }) => {
      bare(set);
      if (!sameOrigin(request)) throw forbidden('two-factor form posted from another site');
      const secret = pendingSecret(ctx.config, cookie);
      const ip = clientAddress(request, server, ctx.config);
      try {
        const { session, next } = await completeWithCode(ctx.db, secret ?? '', formText(body, 'code').trim(), {
          ip, sessionHours: await sessionHours(), config: ctx.config, refusals: refusalLimiter(ctx),
        });
        clearPendingCookie(ctx.config, cookie);
        setSessionCookie(ctx.config, cookie, session.secret, session.expiresAt);
        return redirect(next, 303);
      } catch (error) {
        if (!(error instanceof AppError) || !['UNAUTHORIZED', 'THROTTLED', 'GONE'].includes(error.code)) throw error;
        set.status = error.status;
        if (error.code === 'THROTTLED') set.headers['retry-after'] = String(THROTTLE_WINDOW_MINUTES * 60);
        const pending = await pendingSignIn(ctx.db, secret);
        if (!pending) clearPendingCookie(ctx.config, cookie);
        return <CodeStepPage email={pending?.email ?? ''} error={pending ? error.message : error.code === 'GONE' ? error.message : `${error.message} ${PENDING_GONE}`} gone={!pending} />;
      }
    })
    .get('/sign-in/two-factor/enrol', async ({ cookie, redirect, set }) => {
      bare(set);
      const secret = pendingSecret(ctx.config, cookie);
      const pending = await pendingSignIn(ctx.db, secret);
      if (!pending) return redirect('/sign-in', 303);
      if (pending.step === 'code') return redirect('/sign-in/two-factor', 303);
      return <EnrolStepPage email={pending.email} enrolment={await enrolmentForPending(ctx.db, secret!, ctx.config)} />;
    })
    .post('/sign-in/two-factor/enrol', async ({ cookie, body, set, request, server }) => {
      bare(set);
      if (!sameOrigin(request)) throw forbidden('two-factor form posted from another site');
      const secret = pendingSecret(ctx.config, cookie) ?? '';
      const ip = clientAddress(request, server, ctx.config);
      try {
        const { session, next, recoveryCodes } = await completeWithEnrolment(ctx.db, secret, formText(body, 'code').trim(), {
          ip, sessionHours: await sessionHours(), config: ctx.config,
        });
        clearPendingCookie(ctx.config, cookie);
        setSessionCookie(ctx.config, cookie, session.secret, session.expiresAt);
        return <EnrolledPage codes={recoveryCodes} next={next} />;
      } catch (error) {
        if (!(error instanceof AppError) || !['INVALID', 'GONE'].includes(error.code)) throw error;
        set.status = error.status;
        const pending = await pendingSignIn(ctx.db, secret);
        if (!pending) {
          clearPendingCookie(ctx.config, cookie);
          return <CodeStepPage email="" error={PENDING_GONE} gone />;
        }
        const message = fieldErrors(error.problems).code ? `The code ${fieldErrors(error.problems).code}.` : error.message;
        return <EnrolStepPage email={pending.email} enrolment={await enrolmentForPending(ctx.db, secret, ctx.config)} error={message} />;
      }
    })
    .post('/sign-in/two-factor/cancel', async ({ cookie, redirect, request }) => {
      if (!sameOrigin(request)) throw forbidden('two-factor form posted from another site');
      await cancelPendingSignIn(ctx.db, pendingSecret(ctx.config, cookie));
      clearPendingCookie(ctx.config, cookie);
      // A session already open in this browser stays as it is.
      if (await resolveSession(ctx.db, cookieSecret(ctx.config, cookie))) return redirect('/', 303);
      return redirect('/sign-in', 303);
    });
};
