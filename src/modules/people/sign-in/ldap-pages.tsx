import { Elysia } from 'elysia';
import { renderScreen } from '../../../platform/http/screen';
import { fieldErrors } from '../../../../views/components/form';
import { attempt, formText } from '../../../platform/http/form-input';
import { runWrite, type AppContext } from '../../../platform/http/context';
import { holdsEveryRight, levelOf, type Actor } from '../../../platform/permissions/permissions';
import { screenAuth } from '../../../platform/http/screen-auth';
import { listGroups } from '../service';
import { readLdapSettings, saveLdapSettings, testLdapConnection } from './ldap';
import type { ConnectionTest, GroupMapping, LdapSettingsInput } from './schema';
import { LdapSettingsPage } from './ldap-views';

const MAX_MAPPING_ROWS = 60;

/** The form's values; mapping rows whose DN is blank are dropped (that is how a mapping is removed). */
function formValues(body: unknown): LdapSettingsInput {
  const rows = Math.min(MAX_MAPPING_ROWS, Math.max(0, Number.parseInt(formText(body, 'mapRows'), 10) || 0));
  const groupMappings: GroupMapping[] = [];
  for (let i = 0; i < rows; i += 1) {
    const directoryGroupDn = formText(body, `mapDn.${i}`).slice(0, 1000);
    if (directoryGroupDn.trim()) groupMappings.push({ directoryGroupDn, groupId: formText(body, `mapGroup.${i}`) });
  }
  const timeout = Number(formText(body, 'timeoutSeconds'));
  return {
    enabled: formText(body, 'enabled') === 'on',
    url: formText(body, 'url').slice(0, 500),
    startTls: formText(body, 'startTls') === 'on',
    caCertificate: formText(body, 'caCertificate').slice(0, 20_000),
    bindDn: formText(body, 'bindDn').slice(0, 1000),
    bindPassword: formText(body, 'bindPassword').slice(0, 1000),
    baseDn: formText(body, 'baseDn').slice(0, 1000),
    userFilter: formText(body, 'userFilter').slice(0, 1000),
    emailAttribute: formText(body, 'emailAttribute').slice(0, 100),
    nameAttribute: formText(body, 'nameAttribute').slice(0, 100),
    groupMappings,
    createUsers: formText(body, 'createUsers') === 'on',
    timeoutSeconds: Number.isFinite(timeout) ? timeout : Number.NaN,
  };
}

const shell = (viewer: Actor, csrfToken: string) => ({ title: 'Directory (LDAP) sign-in', viewer, csrfToken, active: 'ldap' });

/** Settings › Directory (LDAP): read with settings:read; Save and Test connection need settings:update at level all. */
export const ldapPages = (ctx: AppContext) =>
  new Elysia({ name: 'module:people:ldap' })
    .use(screenAuth(ctx))
    .get('/settings/sign-in/ldap', async ({ viewer, csrfToken, headers, query }) => {
      const [{ hasBindPassword, ...values }, groups] = await Promise.all([readLdapSettings(ctx.db, viewer), listGroups(ctx.db)]);
      return renderScreen(headers, shell(viewer, csrfToken),
        <LdapSettingsPage csrfToken={csrfToken} canSave={levelOf(viewer, 'settings:update') === 'all' && holdsEveryRight(viewer)} values={values}
          hasBindPassword={hasBindPassword} groups={groups} done={query.done === 'saved'} />);
    }, { page: 'settings:read' })
    .post('/settings/sign-in/ldap', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const input = formValues(body);
      const saved = await attempt(() => runWrite(ctx, (tx) => saveLdapSettings(tx, viewer, ctx.config, input)));
      if (saved.ok) return redirect('/settings/sign-in/ldap?done=saved', 303);
      set.status = saved.error.status;
      const [{ hasBindPassword }, groups] = await Promise.all([readLdapSettings(ctx.db, viewer), listGroups(ctx.db)]);
      const { bindPassword: _typed, ...values } = input;
      return renderScreen(headers, shell(viewer, csrfToken),
        <LdapSettingsPage csrfToken={csrfToken} canSave values={values} hasBindPassword={hasBindPassword} groups={groups}
          error={saved.error.problems.length ? 'Please correct the fields marked below. Nothing was saved.' : saved.error.message}
          errors={fieldErrors(saved.error.problems)} />);
    }, { page: 'settings:update' })
    .post('/settings/sign-in/ldap/test', async ({ viewer, csrfToken, headers, body, set }) => {
      const input = formValues(body);
      const tested = await attempt<ConnectionTest>(() => testLdapConnection(ctx.db, viewer, ctx.config, input));
      if (!tested.ok) set.status = tested.error.status;
      const [{ hasBindPassword }, groups] = await Promise.all([readLdapSettings(ctx.db, viewer), listGroups(ctx.db)]);
      const { bindPassword: _typed, ...values } = input;
      return renderScreen(headers, shell(viewer, csrfToken),
        <LdapSettingsPage csrfToken={csrfToken} canSave values={values} hasBindPassword={hasBindPassword} groups={groups}
          test={tested.ok ? tested.value : undefined}
          error={tested.ok ? undefined : tested.error.problems.length ? 'Please correct the fields marked below before testing.' : tested.error.message}
          errors={tested.ok ? undefined : fieldErrors(tested.error.problems)} />);
    }, { page: 'settings:update' });
