import type { Cookie } from 'elysia';
import type { Config } from '../../../config';
import type { AppContext } from '../../../platform/http/context';
import type { AfterPassword } from '../../../platform/http/sessions';
import { beginSecondStep, PENDING_MINUTES } from './service';

type Cookies = Record<string, Cookie<unknown>>;

/** The pending sign-in's cookie: HttpOnly, SameSite=Strict, gone after PENDING_MINUTES. */
export const pendingCookieName = (config: Pick<Config, 'COOKIE_SECURE'>) =>
  config.COOKIE_SECURE ? '__Host-grc_sign_in_step' : 'grc_sign_in_step';

export function setPendingCookie(config: Config, cookie: Cookies, secret: string) {
  cookie[pendingCookieName(config)].set({
    value: secret, httpOnly: true, sameSite: 'strict', secure: config.COOKIE_SECURE, path: '/', maxAge: PENDING_MINUTES * 60,
  });
}

export function clearPendingCookie(config: Config, cookie: Cookies) {
  cookie[pendingCookieName(config)].set({ value: '', httpOnly: true, sameSite: 'strict', secure: config.COOKIE_SECURE, path: '/', maxAge: 0 });
}

export const pendingSecret = (config: Config, cookie: Cookies): string | undefined => {
  const value = cookie[pendingCookieName(config)]?.value;
  return typeof value === 'string' && value ? value : undefined;
};

/**
 * Password sign-in's second step (docs/people.md, Two-factor sign-in): handed to signIn by the sign-in route. A person
 * with a second factor, or one the rule requires to enrol, gets a pending sign-in bound to this browser instead of a
 * session, and is sent to the code (or enrolment) page.
 */
export const twoFactorAfterPassword = (ctx: AppContext, cookie: Cookies, next: string): AfterPassword => async (checked) => {
  const started = await beginSecondStep(ctx.db, checked, next);
  if (!started) return null;
  setPendingCookie(ctx.config, cookie, started.secret);
  return { continueAt: started.step === 'code' ? '/sign-in/two-factor' : '/sign-in/two-factor/enrol' };
};
