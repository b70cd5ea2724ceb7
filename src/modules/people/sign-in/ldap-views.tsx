import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field, type FieldErrors } from '../../../../views/components/form';
import type { ConnectionTest, LdapSettings } from './schema';

/** Empty mapping rows offered below the saved ones, so a few can be added in one save without scripts. */
export const SPARE_MAPPING_ROWS = 3;

export interface LdapPageProps {
  csrfToken: string;
  canSave: boolean;
  values: LdapSettings;
  hasBindPassword: boolean;
  groups: { id: string; name: string }[];
  done?: boolean;
  error?: string;
  errors?: FieldErrors;
  test?: ConnectionTest;
}

function Checkbox({ name, label, checked, disabled }: { name: string; label: string; checked: boolean; disabled: boolean }): JSX.Element {
  return <label class="inline"><input type="checkbox" id={`f-${name}`} name={name} value="on" checked={checked} disabled={disabled} /> <span safe>{label}</span></label>;
}

function TestResult({ test }: { test?: ConnectionTest }): JSX.Element {
  if (!test) return '';
  if (!test.ok) return <Flash kind="error" message={`Test connection failed: ${test.reason}.`} />;
  const count = test.more ? `at least ${test.entries}` : String(test.entries);
  return <Flash kind="success" message={`Connected and signed in as the service account. The user filter finds ${count} ${test.entries === 1 && !test.more ? 'entry' : 'entries'} under the base DN.`} />;
}

/** Settings › Directory (LDAP): where the directory is, how people are found, which groups follow it. */
export function LdapSettingsPage(p: LdapPageProps): JSX.Element {
  const errors = p.errors ?? {};
  const disabled = !p.canSave;
  const groupOptions = [{ value: '', label: '(choose a group)' }, ...p.groups.map((g) => ({ value: g.id, label: g.name }))];
  const rows = [...p.values.groupMappings, ...Array.from({ length: SPARE_MAPPING_ROWS }, () => ({ directoryGroupDn: '', groupId: '' }))];
  return (
    <section id="ldap">
      <Flash kind="success" message={p.done ? 'Directory sign-in settings saved; every administrator was emailed.' : undefined} />
      <Flash kind="error" message={p.error} />
      <TestResult test={p.test} />
      <p>
        People without a password here sign in with their directory e-mail and password: the service account finds
        their entry with the user filter, and a bind as that entry checks the password. Throttling and two-factor
        sign-in apply as for passwords here. OpenID Connect and "Only SSO sign-in" are on <a href="/settings/sign-in">Settings › Sign-in</a>.
      </p>
      <form method="post" action="/settings/sign-in/ldap" class="card form">
        <CsrfField token={p.csrfToken} />
        <Checkbox name="enabled" label="Sign in through the directory" checked={p.values.enabled} disabled={disabled} />
        <fieldset>
          <legend>Connection</legend>
          <Field label="Directory address" name="url" value={p.values.url} error={errors.url} maxlength={500}
            hint="ldaps://directory.example.com (port 636) or ldap://directory.example.com:389 with StartTLS. Plain ldap:// without StartTLS sends passwords unencrypted." />
          <Checkbox name="startTls" label="Use StartTLS (ldap:// addresses)" checked={p.values.startTls} disabled={disabled} />
          <Field label="CA certificate (PEM)" name="caCertificate" type="textarea" value={p.values.caCertificate} error={errors.caCertificate} maxlength={20000}
            hint="Only when the directory's certificate is signed by a private authority; blank trusts the system's authorities." />
          <Field label="Timeout (seconds)" name="timeoutSeconds" type="number" value={p.values.timeoutSeconds} error={errors.timeoutSeconds} min={1} max={60}
            hint="How long to wait for the directory before sign-in is refused (with the same answer as a wrong password; the cause is in the Audit Log)." />
        </fieldset>
        <fieldset>
          <legend>Service account</legend>
          <Field label="Bind DN" name="bindDn" value={p.values.bindDn} error={errors.bindDn} maxlength={1000} hint="For example cn=grc-reader,ou=services,dc=example,dc=com" />
          <Field label="Password" name="bindPassword" type="password" error={errors.bindPassword} autocomplete="new-password" maxlength={1000}
            hint={p.hasBindPassword ? 'A password is stored. Leave blank to keep it while the address, TLS settings and bind DN stay the same; changing any of them needs the password again.' : 'No password is stored yet.'} />
        </fieldset>
        <fieldset>
          <legend>Finding people</legend>
          <Field label="Base DN" name="baseDn" value={p.values.baseDn} error={errors.baseDn} maxlength={1000} hint="Searched with all levels below it, for example ou=people,dc=example,dc=com" />
          <Field label="User filter" name="userFilter" value={p.values.userFilter} error={errors.userFilter} maxlength={1000}
            hint="{login} stands for the typed e-mail (escaped, so it is only ever a value). It must find exactly one entry." />
          <Field label="E-mail attribute" name="emailAttribute" value={p.values.emailAttribute} error={errors.emailAttribute} maxlength={100} hint="The account here is the one with this e-mail" />
          <Field label="Name attribute" name="nameAttribute" value={p.values.nameAttribute} error={errors.nameAttribute} maxlength={100} hint="For example cn or displayName" />
          <Checkbox name="createUsers" label="Create an account here on a person's first sign-in (just-in-time)" checked={p.values.createUsers} disabled={disabled} />
          <p class="hint">While off, only people who already have an account here (without a password) can sign in through the directory.</p>
        </fieldset>
        <fieldset>
          <legend>Group mapping</legend>
          <p class="hint">
            Members of a directory group (groupOfNames, groupOfUniqueNames or memberOf) are put in the group here at each
            sign-in, and taken out when the directory no longer lists them. Groups not mapped here are left alone.
            Clear a row's DN to remove it.
          </p>
          {errors.groupMappings && <p class="error" role="alert" safe>{errors.groupMappings}</p>}
          <div class="table-wrap">
            <table class="data">
              <thead><tr><th scope="col">Directory group DN</th><th scope="col">Group here</th></tr></thead>
              <tbody>
                {rows.map((m, i) => (
                  <tr>
                    <td>
                      <input type="text" name={`mapDn.${i}`} id={`f-mapDn-${i}`} value={m.directoryGroupDn} maxlength={1000} aria-label={`Directory group DN, row ${i + 1}`}
                        aria-invalid={errors[`groupMappings.${i}`] ? 'true' : undefined} aria-describedby={errors[`groupMappings.${i}`] ? `f-map-${i}-error` : undefined} />
                      {errors[`groupMappings.${i}`] && <span class="error" id={`f-map-${i}-error`} role="alert" safe>{errors[`groupMappings.${i}`]}</span>}
                    </td>
                    <td>
                      <select id={`f-mapGroup-${i}`} name={`mapGroup.${i}`} aria-label={`Group here, row ${i + 1}`}>
                        {groupOptions.map((o) => <option value={o.value} selected={o.value === m.groupId} safe>{o.label}</option>)}
                      </select>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <input type="hidden" name="mapRows" value={String(rows.length)} />
        </fieldset>
        {p.canSave
          ? <p class="actions"><button type="submit">Save</button> <button type="submit" class="secondary" formaction="/settings/sign-in/ldap/test">Test connection</button></p>
          : <p class="muted">Only administrators change these settings.</p>}
      </form>
    </section>
  );
}
