import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { runWrite } from '../../platform/http/context';
import { levelOf, type Actor, type Permission } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import { renderScreen } from '../../platform/http/screen';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formList, formText } from '../../platform/http/form-input';
import { endSession, listActiveSessions, type ActiveSession } from '../people/service';
import { sessionSettings, setSessionSettings } from '../../platform/http/sessions';
import { twoFactorRule } from '../people/two-factor/service';
import { createToken, getToken, listTokens, maxLifetimeDays, revokeToken, setMaxLifetimeDays } from './service';
import { chosenRows, LIST_EXPORT_LIMIT, pageOfRows, ruledState } from '../../platform/http/list-query';
import { csvDownload } from '../../platform/csv/list-download';
import { readerZone } from '../../platform/csv/zone';
import { forbidden } from '../../platform/core/errors';
import { creatorsOf, sessionCsvColumns, sessionListRules, tokenCsvColumns, tokenListRules } from './lists';
import { TokensContent, RevokeConfirm, SessionsContent, type CreateForm } from './views';

type Query = Record<string, string | undefined>;

/** Settings › API tokens and Settings › Sessions; every change goes through the API token and people services. */
export const apiTokensPages = (ctx: AppContext) => {
  /** The tokens the viewer may see, chosen by the address's filters and sort (all of them for the CSV). */
  const tokensOf = async (viewer: Actor, query: Query) => {
    const all = await listTokens(ctx.db, viewer);
    const creators = creatorsOf(all);
    const rules = tokenListRules(creators.map((c) => c.value));
    const state = ruledState(query, rules);
    return { rows: chosenRows(all, state, rules), state, creators };
  };
  const tokenList = async (viewer: Actor, query: Query) => {
    const { rows, state, creators } = await tokensOf(viewer, query);
    return { tokens: pageOfRows(rows, state), state, creators };
  };
  /** Active sessions are for administrators (settings:read at level all); up to the export limit. */
  const sessionsOf = async (viewer: Actor, query: Query) => {
    if (levelOf(viewer, 'settings:read') !== 'all') return null;
    const state = ruledState(query, sessionListRules);
    return { rows: chosenRows<ActiveSession>(await listActiveSessions(ctx.db, LIST_EXPORT_LIMIT), state, sessionListRules), state };
  };
  const sessionsFor = async (viewer: Actor, query: Query = {}) => {
    const chosen = await sessionsOf(viewer, query);
    return chosen && { page: pageOfRows(chosen.rows, chosen.state), state: chosen.state };
  };
  return new Elysia({ name: 'module:apiTokens:pages' })
    .use(screenAuth(ctx))
    .get('/settings/api-tokens', async ({ viewer, csrfToken, headers, query }) => {
      const [list, maxDays] = await Promise.all([tokenList(viewer, query), maxLifetimeDays(ctx.db)]);
      return renderScreen(headers, { title: 'API tokens', viewer, csrfToken, active: 'api-tokens' },
        <TokensContent viewer={viewer} csrfToken={csrfToken} {...list} maxDays={maxDays} done={query.done} />);
    }, { page: 'apiTokens:read' })
    // The tokens of the filters (only those the reader may see), in the list's order, as CSV.
    .get('/settings/api-tokens/export.csv', async ({ viewer, query, set }) => {
      const { rows } = await tokensOf(viewer, query);
      return csvDownload(set, 'api-tokens', tokenCsvColumns(readerZone(query.tz)), rows);
    }, { page: 'apiTokens:read' })
    .post('/settings/api-tokens', async ({ viewer, csrfToken, headers, body, set }) => {
      const form: CreateForm = { name: formText(body, 'name'), expiresAt: formText(body, 'expiresAt'), scopes: formList(body, 'scopes') };
      const result = await attempt(() => runWrite(ctx, (tx) => createToken(tx, viewer, {
        name: form.name, scopes: form.scopes as Permission[], expiresAt: form.expiresAt || null,
      })));
      set.status = result.ok ? 201 : result.error.status;
      // Reading needs apiTokens:read; a creator without it still sees the secret, just not the list.
      const canRead = levelOf(viewer, 'apiTokens:read') !== null;
      const [list, maxDays] = await Promise.all([
        canRead ? tokenList(viewer, {}) : { tokens: { rows: [], total: 0, page: 1, pageSize: 50 }, state: ruledState({}, tokenListRules([])), creators: [] },
        maxLifetimeDays(ctx.db),
      ]);
      const content = result.ok
        ? <TokensContent viewer={viewer} csrfToken={csrfToken} {...list} maxDays={maxDays} created={{ name: form.name.trim(), secret: result.value.secret }} />
        : <TokensContent viewer={viewer} csrfToken={csrfToken} {...list} maxDays={maxDays} form={form}
            errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message} />;
      return renderScreen(headers, { title: 'API tokens', viewer, csrfToken, active: 'api-tokens' }, content);
    }, { page: 'apiTokens:create' })
    .get('/settings/api-tokens/:id/revoke', async ({ viewer, csrfToken, headers, params }) => {
      const token = await getToken(ctx.db, viewer, params.id);
      return renderScreen(headers, { title: 'Revoke API token', viewer, csrfToken, active: 'api-tokens' },
        <RevokeConfirm token={token} csrfToken={csrfToken} />);
    }, { page: 'apiTokens:update' })
    .post('/settings/api-tokens/:id/revoke', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => revokeToken(tx, viewer, params.id));
      return redirect('/settings/api-tokens?done=revoked', 303);
    }, { page: 'apiTokens:update' })
    .get('/settings/sessions', async ({ viewer, csrfToken, headers, query }) => {
      const [maxDays, sessions] = await Promise.all([maxLifetimeDays(ctx.db), sessionsFor(viewer, query)]);
      return renderScreen(headers, { title: 'Sessions', viewer, csrfToken, active: 'sessions' },
        <SessionsContent viewer={viewer} csrfToken={csrfToken} maxDays={maxDays} session={await sessionSettings(ctx.db, ctx.config.SESSION_HOURS)} twoFactor={await twoFactorRule(ctx.db)} sessions={sessions} done={query.done} />);
    }, { page: 'settings:read' })
    // The active sessions of the filters, in the list's order, as CSV: for administrators, as the list.
    .get('/settings/sessions/export.csv', async ({ viewer, query, set }) => {
      const chosen = await sessionsOf(viewer, query);
      if (!chosen) throw Object.assign(forbidden('settings:read at level all needed to read active sessions'), { actor: viewer });
      return csvDownload(set, 'sessions', sessionCsvColumns(readerZone(query.tz)), chosen.rows);
    }, { page: 'settings:read' })
    .post('/settings/sessions', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const raw = formText(body, 'maxLifetimeDays').trim();
      const days = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
      const result = await attempt(() => runWrite(ctx, (tx) => setMaxLifetimeDays(tx, viewer, days)));
      if (result.ok) return redirect('/settings/sessions?done=saved', 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Sessions', viewer, csrfToken, active: 'sessions' },
        <SessionsContent viewer={viewer} csrfToken={csrfToken} maxDays={await maxLifetimeDays(ctx.db)} session={await sessionSettings(ctx.db, ctx.config.SESSION_HOURS)} twoFactor={await twoFactorRule(ctx.db)}
          sessions={await sessionsFor(viewer)} error={result.error.problems[0]?.message ?? result.error.message} />);
    }, { page: 'settings:update' })
    .post('/settings/sessions/browser', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const whole = (name: string) => (/^\d{1,6}$/.test(formText(body, name).trim()) ? Number(formText(body, name).trim()) : Number.NaN);
      const wanted = { lifetimeHours: whole('lifetimeHours'), idleMinutes: whole('idleMinutes') };
      const result = await attempt(() => runWrite(ctx, (tx) => setSessionSettings(tx, viewer, wanted, ctx.config.SESSION_HOURS)));
      if (result.ok) return redirect('/settings/sessions?done=saved', 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Sessions', viewer, csrfToken, active: 'sessions' },
        <SessionsContent viewer={viewer} csrfToken={csrfToken} maxDays={await maxLifetimeDays(ctx.db)} session={await sessionSettings(ctx.db, ctx.config.SESSION_HOURS)} twoFactor={await twoFactorRule(ctx.db)}
          sessions={await sessionsFor(viewer)} errors={fieldErrors(result.error.problems)} />);
    }, { page: 'settings:update' })
    .post('/settings/sessions/:id/end', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => endSession(tx, viewer, params.id));
      return redirect('/settings/sessions?done=ended', 303);
    }, { page: 'settings:update' });
};
