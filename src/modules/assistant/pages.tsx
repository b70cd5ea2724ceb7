import { Elysia } from 'elysia';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import { runWrite, type AppContext } from '../../platform/http/context';
import type { Actor } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import type { AssistantSettings } from './schema';
import { readAssistantSettings, saveAssistantSettings } from './settings-service';
import { AssistantSettingsPage } from './views';

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
