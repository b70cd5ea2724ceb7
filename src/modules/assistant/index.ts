import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { mcpEndpoint } from './mcp';
import { assistantPages } from './pages';
import { assistantCoreTools } from './tools';

/** The AI-assistant endpoint /api/mcp, its settings, and the tools that read across modules (get_record, my_open_items). */
export const manifest: ModuleManifest = defineModule({
  name: 'assistant',
  plugins: (ctx) => [mcpEndpoint(ctx), assistantPages(ctx)],
  nav: [{ group: 'Settings', key: 'assistants', href: '/settings/assistants', label: 'AI assistants', needs: 'settings:read' }],
  assistantTools: assistantCoreTools,
});
