import { Elysia } from 'elysia';
import { runWrite, type AppContext } from '../../../platform/http/context';
import { screenAuth } from '../../../platform/http/screen-auth';
import { renderScreen } from '../../../platform/http/screen';
import { attempt, formText } from '../../../platform/http/form-input';
import { createScimToken, listScimTokens, revokeScimToken, scimEnabled, setScimEnabled } from './service';
import { ProvisioningContent, type ProvisioningProps } from './views';

export const provisioningPages = (ctx: AppContext) => {
  const page = async (request: Request, props: Omit<ProvisioningProps, 'origin' | 'enabled' | 'tokens'>) => {
    const [enabled, tokens] = await Promise.all([scimEnabled(ctx.db), listScimTokens(ctx.db)]);
    return <ProvisioningContent {...props} origin={new URL(request.url).origin} enabled={enabled} tokens={tokens} />;
  };
  const title = { title: 'Provisioning', active: 'provisioning' };
  return new Elysia({ name: 'module:people:provisioning-pages' })
    .use(screenAuth(ctx))
    .get('/settings/provisioning', async ({ viewer, csrfToken, headers, request, query }) =>
      renderScreen(headers, { ...title, viewer, csrfToken }, await page(request, { viewer, csrfToken, done: query.done })),
    { page: 'settings:read' })
    .post('/settings/provisioning/switch', async ({ viewer, body, redirect }) => {
      const enabled = formText(body, 'enabled') === 'true';
      await runWrite(ctx, (tx) => setScimEnabled(tx, viewer, enabled));
      return redirect(`/settings/provisioning?done=${enabled ? 'on' : 'off'}`, 303);
    }, { page: 'settings:update' })
    .post('/settings/provisioning/tokens', async ({ viewer, csrfToken, headers, request, body, set }) => {
      const name = formText(body, 'name');
      const result = await attempt(() => runWrite(ctx, (tx) => createScimToken(tx, viewer, name)));
      set.status = result.ok ? 201 : result.error.status;
      const content = result.ok
        ? await page(request, { viewer, csrfToken, created: { name: name.trim(), secret: result.value.secret } })
        : await page(request, { viewer, csrfToken, tokenName: name, error: result.error.message });
      return renderScreen(headers, { ...title, viewer, csrfToken }, content);
    }, { page: 'settings:update' })
    .post('/settings/provisioning/tokens/:id/revoke', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => revokeScimToken(tx, viewer, params.id));
      return redirect('/settings/provisioning?done=revoked', 303);
    }, { page: 'settings:update' });
};
