import { Flash } from '../../../views/components/flash';
import { CsrfField, Field } from '../../../views/components/form';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import type { AssistantSettings } from './schema';
import { effectiveIdp } from './settings-service';

interface PageProps {
  viewer: Actor;
  csrfToken: string;
  origin: string;
  values: AssistantSettings;
  done?: boolean;
  error?: string;
  errors?: Record<string, string>;
}

function Checkbox({ name, label, checked, disabled }: { name: string; label: string; checked: boolean; disabled: boolean }): JSX.Element {
  return <label class="inline"><input type="checkbox" name={name} value="on" checked={checked} disabled={disabled} /> <span safe>{label}</span></label>;
}

/** Settings › AI assistants: the endpoint switch, privacy records, and identity-provider access tokens. */
export function AssistantSettingsPage(p: PageProps): JSX.Element {
  const canSave = levelOf(p.viewer, 'settings:update') === 'all';
  const idp = effectiveIdp(p.values);
  const disabled = !canSave;
  return (
    <>
      <Flash kind="success" message={p.done ? 'AI assistant settings saved; every administrator was emailed.' : undefined} />
      <Flash kind="error" message={p.error} />
      <p>Assistants (Claude, Copilot and other MCP clients) connect to <code safe>{`${p.origin}/api/mcp`}</code> with an API token
        and act as the token's user, with that user's current rights. They can search and read records and record, link,
        lock and upload evidence; they never delete, unlock, edit record fields or decide anything.</p>
      <form method="post" action="/settings/assistants" class="card form">
        <CsrfField token={p.csrfToken} />
        <Checkbox name="enabled" label="Allow AI assistants to connect" checked={p.values.enabled} disabled={disabled} />
        <p class="hint">While off, /api/mcp answers 404.</p>
        <Checkbox name="includePrivacy" label="Include privacy records" checked={p.values.includePrivacy} disabled={disabled} />
        <p class="hint">While off, privacy records are never returned or accepted by any tool.</p>
        <Checkbox name="acceptIdpTokens" label="Accept identity-provider access tokens" checked={p.values.acceptIdpTokens} disabled={disabled} />
        <Field label="Directory (tenant) ID" name="tenantId" value={p.values.tenantId} error={p.errors?.tenantId} />
        <Field label="Application (client) ID" name="clientId" value={p.values.clientId} error={p.errors?.clientId} />
        <Field label="Application ID URI" name="applicationIdUri" value={p.values.applicationIdUri} hint={`Blank gives ${idp.applicationIdUri}`} />
        <Field label="Required scope" name="requiredScope" value={p.values.requiredScope} hint="Blank gives Mcp.Access" />
        {canSave ? <button type="submit">Save</button> : <p class="muted">Only administrators change these settings.</p>}
      </form>
    </>
  );
}
