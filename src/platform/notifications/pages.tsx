import { Elysia } from 'elysia';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formList, formText } from '../http/form-input';
import { renderScreen } from '../http/screen';
import { appendAudit } from '../audit/audit';
import { runWrite, type AppContext } from '../http/context';
import { forbidden } from '../core/errors';
import { platformService } from '../http/installed';
import { recordEvents } from './declarations';
import { holdsEveryRight, levelOf, type Actor } from '../permissions/permissions';
import { screenAuth } from '../http/screen-auth';
import { RULE_EVENTS, type RuleEvent } from './declarations';
import { previewDigest, previewNextSweep, recentRuns } from './reminders';
import { createRule, deleteRule, eventsOf, getRule, ruleInput, updateRule, type NotificationRuleInput } from './rules';
import { ruleCsvColumns, ruleListRules, ruleRecordTypes, ruleRows } from './rule-list';
import { chosenRows, pageOfRows, ruledState } from '../http/list-query';
import { csvDownload } from '../csv/list-download';
import {
  EMAIL, mailPreferencesOf, mailSettingsView, notificationSettings, saveMailPreferences, saveMailSettings, saveNotificationSettings, TIME_ZONES,
  type MailSettings,
} from './settings';
import { DeleteRulePage, MailPage, MyNotificationsPage, NotificationsPage, PreviewPage, RuleForm, RuleTypeParts } from './views';

const PREVIEW_PAGE = 50;
const canChange = (viewer: Actor) => levelOf(viewer, 'settings:update') === 'all';
const lines = (text: string) => text.split(/[\s,;]+/).map((l) => l.trim()).filter(Boolean);

/** The rule as the form sent it (a browser sends only ticked boxes; the status and activity share `value`). */
function ruleFromForm(body: unknown): NotificationRuleInput {
  const event = formText(body, 'event');
  return {
    name: formText(body, 'name').slice(0, 200),
    recordType: formText(body, 'recordType').slice(0, 100),
    event: (RULE_EVENTS as readonly string[]).includes(event) ? (event as RuleEvent) : ('' as RuleEvent),
    field: formText(body, 'field') || null,
    value: (event === 'recorded' ? formText(body, 'activity') : formText(body, 'value')) || null,
    notifyOwner: formText(body, 'notifyOwner') === 'on',
    notifyOwnerGroup: formText(body, 'notifyOwnerGroup') === 'on',
    userIds: formList(body, 'userIds'),
    groupIds: formList(body, 'groupIds'),
    addresses: lines(formText(body, 'addresses')),
    enabled: formText(body, 'enabled') === 'on',
  };
}

const NEW_RULE: NotificationRuleInput = {
  name: '', recordType: '', event: 'changed', field: null, value: null, notifyOwner: true, notifyOwnerGroup: false, userIds: [], groupIds: [], addresses: [], enabled: true,
};

export const notificationPages = (ctx: AppContext) => {
  const shell = (title: string, viewer: Actor, csrfToken: string, active = 'notifications') => ({ title, viewer, csrfToken, active });

  /** Every rule in words, chosen by the address's search, filters and sort. */
  const chosenRules = async (viewer: Actor, query: Record<string, string | undefined>) => {
    const rules = ruleListRules();
    const state = ruledState(query, rules);
    return { state, rows: chosenRows(await ruleRows(ctx.db, viewer), state, rules) };
  };

  const overview = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, extra: { done?: string; error?: string; errors?: Record<string, string> } = {}, query: Record<string, string | undefined> = {}) => {
    const [settings, rules, runs] = await Promise.all([notificationSettings(ctx.db), chosenRules(viewer, query), recentRuns(ctx.db)]);
    return renderScreen(headers, shell('Notifications', viewer, csrfToken),
      <NotificationsPage csrfToken={csrfToken} canChange={canChange(viewer)} settings={settings} timeZones={TIME_ZONES} rules={pageOfRows(rules.rows, rules.state)}
        ruleState={rules.state} recordTypes={ruleRecordTypes()} runs={runs} {...extra} />);
  };

  const ruleForm = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, p: {
    title: string; action: string; values: NotificationRuleInput; errors?: Record<string, string>; error?: string; canDelete?: boolean;
  }) => {
    const [people, groupList, mail] = await Promise.all([platformService('listUsers')(ctx.db), platformService('listGroups')(ctx.db), mailSettingsView(ctx.db)]);
    const users = people.filter((u) => u.status === 'active' || p.values.userIds.includes(u.id))
      .map((u) => ({ value: u.id, label: u.status === 'active' ? u.name : `${u.name} (deactivated: skipped)` }));
    return renderScreen(headers, shell(p.title, viewer, csrfToken),
      <RuleForm action={p.action} csrfToken={csrfToken} values={p.values} types={recordEvents()} users={users}
        groups={groupList.map((g) => ({ value: g.id, label: g.name }))} errors={p.errors ?? {}} error={p.error} canDelete={p.canDelete ?? false} domains={mail.domains} />);
  };

  const refused = (problems: number, message: string) => (problems ? 'Please correct the fields marked below.' : message);

  return new Elysia({ name: 'platform:notification-pages' })
    .use(screenAuth(ctx))
    .get('/settings/notifications', ({ viewer, csrfToken, headers, query }) => overview(viewer, csrfToken, headers, { done: query.done }, query), { page: 'settings:read' })
    // The rules of the filters, in words, as CSV.
    .get('/settings/notifications/rules/export.csv', async ({ viewer, query, set }) =>
      csvDownload(set, 'notification-rules', ruleCsvColumns, (await chosenRules(viewer, query)).rows), { page: 'settings:read' })
    .post('/settings/notifications', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const current = await notificationSettings(ctx.db);
      const hour = Number(formText(body, 'reminderHour'));
      const input = {
        notifyOnApiChanges: formText(body, 'notifyOnApiChanges') === 'on',
        reminderHour: Number.isInteger(hour) ? hour : -1,
        timeZone: formText(body, 'timeZone').slice(0, 64),
        paused: current.paused,
      };
      const saved = await attempt(() => runWrite(ctx, (tx) => saveNotificationSettings(tx, viewer, input)));
      if (saved.ok) return redirect('/settings/notifications?done=saved', 303);
      set.status = saved.error.status;
      return overview(viewer, csrfToken, headers, { error: refused(saved.error.problems.length, saved.error.message), errors: fieldErrors(saved.error.problems) });
    }, { page: 'settings:read' })
    .post('/settings/notifications/reminders', async ({ viewer, body, redirect }) => {
      const paused = formText(body, 'paused') === 'on';
      await runWrite(ctx, async (tx) => saveNotificationSettings(tx, viewer, { ...(await notificationSettings(tx)), paused }));
      return redirect(`/settings/notifications?done=${paused ? 'paused' : 'resumed'}`, 303);
    }, { page: 'settings:read' })
    .get('/settings/notifications/preview', async ({ viewer, csrfToken, headers, query }) => {
      if (levelOf(viewer, 'settings:read') !== 'all') throw Object.assign(forbidden('settings:read at level all needed for the reminder preview'), { actor: viewer });
      const page = Math.max(1, Math.min(100_000, Number(/^\d{1,6}$/.test(query.page ?? '') ? query.page : 1)));
      const preview = await previewNextSweep(ctx.db, { offset: (page - 1) * PREVIEW_PAGE, limit: PREVIEW_PAGE });
      const person = /^[0-9a-f-]{36}$/i.test(query.person ?? '') ? query.person : undefined;
      const digest = person ? await previewDigest(ctx, person) : undefined;
      return renderScreen(headers, shell('Next reminder digests', viewer, csrfToken),
        <PreviewPage day={preview.day} paused={preview.settings.paused} kinds={preview.kinds} rows={preview.rows} people={preview.people} page={page} pageSize={PREVIEW_PAGE}
          digest={digest} person={person} />);
    }, { page: 'settings:read' })
    .get('/settings/notifications/rules/new', ({ viewer, csrfToken, headers, query }) =>
      ruleForm(viewer, csrfToken, headers, { title: 'New notification rule', action: '/settings/notifications/rules', values: { ...NEW_RULE, recordType: query.recordType ?? '' } }),
    { page: 'settings:update' })
    .get('/settings/notifications/rules/parts', ({ query }) => {
      const values = { ...NEW_RULE, recordType: query.recordType ?? '', event: (query.event ?? 'changed') as RuleEvent };
      return <RuleTypeParts events={eventsOf(values.recordType)} values={values} errors={{}} />;
    }, { page: 'settings:read' })
    .post('/settings/notifications/rules', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const values = ruleFromForm(body);
      const saved = await attempt(() => runWrite(ctx, (tx) => createRule(tx, viewer, values)));
      if (saved.ok) return redirect('/settings/notifications?done=created', 303);
      set.status = saved.error.status;
      return ruleForm(viewer, csrfToken, headers, {
        title: 'New notification rule', action: '/settings/notifications/rules', values,
        errors: fieldErrors(saved.error.problems), error: refused(saved.error.problems.length, saved.error.message),
      });
    }, { page: 'settings:update' })
    .get('/settings/notifications/rules/:id', async ({ viewer, csrfToken, headers, params }) => {
      const rule = await getRule(ctx.db, viewer, params.id);
      return ruleForm(viewer, csrfToken, headers, { title: `Rule: ${rule.name}`, action: `/settings/notifications/rules/${rule.id}`, values: ruleInput(rule), canDelete: canChange(viewer) });
    }, { page: 'settings:read' })
    .post('/settings/notifications/rules/:id', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = ruleFromForm(body);
      const saved = await attempt(() => runWrite(ctx, (tx) => updateRule(tx, viewer, params.id, values)));
      if (saved.ok) return redirect('/settings/notifications?done=updated', 303);
      set.status = saved.error.status;
      return ruleForm(viewer, csrfToken, headers, {
        title: 'Notification rule', action: `/settings/notifications/rules/${params.id}`, values, canDelete: true,
        errors: fieldErrors(saved.error.problems), error: refused(saved.error.problems.length, saved.error.message),
      });
    }, { page: 'settings:update' })
    .get('/settings/notifications/rules/:id/delete', async ({ viewer, csrfToken, headers, params }) => {
      const rule = await getRule(ctx.db, viewer, params.id);
      return renderScreen(headers, shell(`Delete rule: ${rule.name}`, viewer, csrfToken), <DeleteRulePage rule={rule} csrfToken={csrfToken} />);
    }, { page: 'settings:update' })
    .post('/settings/notifications/rules/:id/delete', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => deleteRule(tx, viewer, params.id));
      return redirect('/settings/notifications?done=deleted', 303);
    }, { page: 'settings:update' })

    // Settings › Mail
    .get('/settings/mail', async ({ viewer, csrfToken, headers, query }) => mailPage(viewer, csrfToken, headers, { done: query.done === 'saved' }), { page: 'settings:read' })
    .post('/settings/mail', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const port = Number(formText(body, 'port'));
      const input: MailSettings & { clearPassword: boolean } = {
        host: formText(body, 'host').trim().slice(0, 253),
        port: Number.isInteger(port) ? port : 0,
        security: (['starttls', 'tls', 'none'].includes(formText(body, 'security')) ? formText(body, 'security') : 'starttls') as MailSettings['security'],
        username: formText(body, 'username').slice(0, 320),
        password: formText(body, 'password').slice(0, 2000),
        from: formText(body, 'from').slice(0, 320),
        domains: lines(formText(body, 'domains')).slice(0, 50),
        caCertificate: formText(body, 'caCertificate').slice(0, 20_000),
        clearPassword: formText(body, 'clearPassword') === 'on',
      };
      const saved = await attempt(() => runWrite(ctx, (tx) => saveMailSettings(tx, viewer, ctx.config, input)));
      if (saved.ok) return redirect('/settings/mail?done=saved', 303);
      set.status = saved.error.status;
      const { password: _p, clearPassword: _c, ...shown } = input;
      return mailPage(viewer, csrfToken, headers, {
        values: { ...shown, hasPassword: (await mailSettingsView(ctx.db)).hasPassword },
        error: refused(saved.error.problems.length, saved.error.message), errors: fieldErrors(saved.error.problems),
      });
    }, { page: 'settings:read' })
    .post('/settings/mail/test', async ({ viewer, csrfToken, headers, body, set }) => {
      if (!holdsEveryRight(viewer)) throw Object.assign(forbidden('every right at level all needed to send a test message'), { actor: viewer });
      const to = formText(body, 'to').trim().slice(0, 320);
      if (!EMAIL.test(to)) {
        set.status = 400;
        return mailPage(viewer, csrfToken, headers, { testTo: to, errors: { to: 'must be an email address' }, error: 'Please correct the fields marked below.' });
      }
      const result = await ctx.mailer.sendNow(to, 'Test message from the GRC service', `This is a test message sent from Settings › Mail by ${viewer.email ?? 'an administrator'}.\n\nIf you read this, mail from the service reaches ${to}.`);
      await runWrite(ctx, (tx) => appendAudit(tx, viewer, [{ module: 'settings', action: 'mail.test', recordType: 'setting', recordId: 'mail', details: { to, ok: result.ok, ...(result.ok ? {} : { error: result.error }) } }]));
      if (!result.ok) set.status = 502;
      return mailPage(viewer, csrfToken, headers, {
        testTo: to, test: result.ok ? { ok: true, message: `Sent to ${to}. The server answered: ${result.response}` } : { ok: false, message: `Not sent: ${result.error}` },
      });
    }, { page: 'settings:read' })

    // A person's own preferences
    .get('/settings/my-notifications', async ({ viewer, csrfToken, headers, query }) =>
      renderScreen(headers, shell('My notifications', viewer, csrfToken, 'my-notifications'),
        <MyNotificationsPage csrfToken={csrfToken} values={await mailPreferencesOf(ctx.db, viewer.userId!)} done={query.done === 'saved'} />), { page: true })
    .post('/settings/my-notifications', async ({ viewer, body, redirect }) => {
      await runWrite(ctx, (tx) => saveMailPreferences(tx, viewer, { digests: formText(body, 'digests') === 'on', ruleMails: formText(body, 'ruleMails') === 'on' }));
      return redirect('/settings/my-notifications?done=saved', 303);
    }, { page: true });

  async function mailPage(viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, extra: {
    done?: boolean; values?: Awaited<ReturnType<typeof mailSettingsView>>; testTo?: string; test?: { ok: boolean; message: string }; error?: string; errors?: Record<string, string>;
  }) {
    if (levelOf(viewer, 'settings:read') !== 'all') throw Object.assign(forbidden('settings:read at level all needed for mail settings'), { actor: viewer });
    return renderScreen(headers, shell('Mail', viewer, csrfToken, 'mail'),
      <MailPage csrfToken={csrfToken} canChange={holdsEveryRight(viewer)} values={extra.values ?? (await mailSettingsView(ctx.db))} inForce={await ctx.mailer.smtpServer()}
        environment={Boolean(ctx.config.SMTP_URL)} testTo={extra.testTo ?? viewer.email ?? ''} test={extra.test} done={extra.done} error={extra.error} errors={extra.errors} />);
  }
};
