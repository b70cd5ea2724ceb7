import { Elysia } from 'elysia';
import { Flash } from '../../../views/components/flash';
import { attempt, CsrfField, Field, fieldErrors, formText } from '../../../views/components/form';
import { renderScreen } from '../../../views/layout';
import { runWrite, type AppContext } from '../../platform/context';
import { levelOf, type Actor } from '../../platform/permissions';
import { screenAuth } from '../../platform/screen-auth';
import type { AssistantSettings } from './schema';
import { effectiveIdp, readAssistantSettings, saveAssistantSettings } from './settings-service';

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
function AssistantSettingsPage(p: PageProps): JSX.Element {
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

const formValues = (body: unknown): AssistantSettings => ({
  enabled: formText(body, 'enabled') === 'on',
  includePrivacy: formText(body, 'includePrivacy') === 'on',
  acceptIdpTokens: formText(body, 'acceptIdpTokens') === 'on',
  tenantId: formText(body, 'tenantId').slice(0, 200),
  clientId: formText(body, 'clientId').slice(0, 200),
  applicationIdUri: formText(body, 'applicationIdUri').slice(0, 500),
  requiredScope: formText(body, 'requiredScope').slice(0, 200),
});

const shell = (viewer: Actor, csrfToken: string) => ({ title: 'AI assistants', viewer, csrfToken, active: 'assistants' });

export const assistantPages = (ctx: AppContext) =>
  new Elysia({ name: 'pages:assistants' })
    .use(screenAuth(ctx))
    .get('/settings/assistants', async ({ viewer, csrfToken, headers, query, request }) => renderScreen(headers, shell(viewer, csrfToken),
      <AssistantSettingsPage viewer={viewer} csrfToken={csrfToken} origin={new URL(request.url).origin}
        values={await readAssistantSettings(ctx.db, viewer)} done={query.done === 'saved'} />), { page: 'settings:read' })
    .post('/settings/assistants', async ({ viewer, csrfToken, headers, body, redirect, set, request }) => {
      const values = formValues(body);
      const saved = await attempt(() => runWrite(ctx, (tx) => saveAssistantSettings(tx, viewer, values)));
      if (saved.ok) return redirect('/settings/assistants?done=saved', 303);
      set.status = saved.error.status;
      return renderScreen(headers, shell(viewer, csrfToken),
        <AssistantSettingsPage viewer={viewer} csrfToken={csrfToken} origin={new URL(request.url).origin} values={values}
          error={saved.error.problems.length ? 'Please correct the fields marked below.' : saved.error.message} errors={fieldErrors(saved.error.problems)} />);
    }, { page: 'settings:read' });
