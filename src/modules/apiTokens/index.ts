import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { apiTokensApi } from './api';
import { apiTokensPages } from './pages';
import { authenticateToken } from './service';

/** API tokens: made and revoked by their users (and administrators), REST and Settings › API tokens. */
export const manifest: ModuleManifest<'apiTokens'> = defineModule({
  name: 'apiTokens',
  apiTags: {
    'API tokens': 'Scoped API tokens: list, create and revoke (docs/api-tokens.md).',
  },
  permissions: permissionArea('apiTokens', { rights: ['read', 'create', 'update'] }),
  plugins: (ctx) => [apiTokensPages(ctx), apiTokensApi(ctx)],
  services: { authenticateToken },
  nav: [{ group: 'Settings', key: 'api-tokens', href: '/settings/api-tokens', label: 'API tokens', needs: 'apiTokens:read' }],
});
