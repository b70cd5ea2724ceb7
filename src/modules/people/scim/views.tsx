import { levelOf, type Actor } from '../../../platform/permissions/permissions';
import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field } from '../../../../views/components/form';
import { DataTable, Text, When } from '../../../../views/components/table';
import { SCIM_BASE_PATH } from './api';
import type { ScimTokenView } from './service';

const DONE: Record<string, string> = {
  on: 'Provisioning is on.',
  off: 'Provisioning is off: the SCIM address answers 404.',
  revoked: 'Token revoked.',
};

export interface ProvisioningProps {
  viewer: Actor;
  csrfToken: string;
  origin: string;
  enabled: boolean;
  tokens: ScimTokenView[];
  done?: string;
  created?: { name: string; secret: string };
  error?: string;
  tokenName?: string;
}

/** Settings › Provisioning: the SCIM switch, its address, and its tokens (made and revoked by administrators). */
export function ProvisioningContent(p: ProvisioningProps) {
  const canChange = levelOf(p.viewer, 'settings:update') === 'all';
  return (
    <section id="provisioning">
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      <Flash kind="error" message={p.error} />
      <div class="card">
        <h2>SCIM 2.0</h2>
        <p>
          Identity providers (Microsoft Entra ID, Okta and others) create, update and deactivate users and groups here.
          Roles stay managed in this service: give roles to the groups the identity provider sends.
        </p>
        <p>SCIM address (tenant URL): <code safe>{`${p.origin}${SCIM_BASE_PATH}`}</code></p>
        <p>Status: <strong safe>{p.enabled ? 'on' : 'off'}</strong></p>
        {canChange && (
          <form method="post" action="/settings/provisioning/switch">
            <CsrfField token={p.csrfToken} />
            <input type="hidden" name="enabled" value={p.enabled ? 'false' : 'true'} />
            <button type="submit" class={p.enabled ? 'danger' : ''}>{p.enabled ? 'Turn provisioning off' : 'Turn provisioning on'}</button>
          </form>
        )}
      </div>
      {p.created && (
        <div class="card" role="status">
          <h2>Token “<span safe>{p.created.name}</span>” created</h2>
          <p>Copy it into the identity provider now (Secret token); it is not shown again.</p>
          <pre class="secret" safe>{p.created.secret}</pre>
        </div>
      )}
      <div class="card">
        <h2>SCIM tokens</h2>
        <p class="muted">SCIM tokens work only on the SCIM address, and API tokens never do. A token acts with its creator's rights.</p>
        {canChange && (
          <form method="post" action="/settings/provisioning/tokens" class="inline-form">
            <CsrfField token={p.csrfToken} />
            <Field label="Name" name="name" value={p.tokenName ?? ''} required maxlength={120} hint="For example “Entra ID production”" />
            <button type="submit">Create SCIM token</button>
          </form>
        )}
        <DataTable<ScimTokenView>
          rows={p.tokens}
          empty="No SCIM tokens."
          columns={[
            { header: 'Name', cell: (t) => <Text value={t.name} /> },
            { header: 'Created by', cell: (t) => <Text value={t.createdBy} /> },
            { header: 'Created', cell: (t) => <When value={t.createdAt} /> },
            { header: 'Last used', cell: (t) => <When value={t.lastUsedAt} empty="never" /> },
            { header: 'Status', cell: (t) => <span class={`status-${t.status.toLowerCase()}`} safe>{t.status}</span> },
            {
              header: '',
              cell: (t) => canChange && t.status === 'Active' ? (
                <form method="post" action={`/settings/provisioning/tokens/${t.id}/revoke`}>
                  <CsrfField token={p.csrfToken} />
                  <button type="submit" class="small danger" aria-label={`Revoke ${t.name}`}>Revoke</button>
                </form>
              ) : '',
            },
          ]}
        />
      </div>
    </section>
  );
}
