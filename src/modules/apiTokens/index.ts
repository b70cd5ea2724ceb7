import { defineModule } from '../../platform/modules/module';
import { apiTokensApi } from './api';
import { apiTokensPages } from './pages';
import { authenticateToken } from './service';

/** API tokens: made and revoked by their users (and administrators), REST and Settings › API tokens. */
export const manifest = defineModule({
  name: 'apiTokens',
  permissions: 'apiTokens',
  plugins: (ctx) => [apiTokensPages(ctx), apiTokensApi(ctx)],
  services: { authenticateToken },
  nav: [{ group: 'Settings', key: 'api-tokens', href: '/settings/api-tokens', label: 'API tokens', needs: 'apiTokens:read' }],
});
