import type { DashboardWidget } from '../../platform/dashboard/declarations';
import { riskHeatMap } from './dashboard';
import { RiskHeatMapView, RisksByBand } from './views/heat-map';

/** The risks' Dashboard widgets; both read the same counts, loaded once per page. */
export const riskWidgets: DashboardWidget[] = [
  {
    key: 'riskHeatMap', title: 'Risk heat map', needs: 'risks:read', width: 'wide',
    render: async (ctx, viewer, shared) => <RiskHeatMapView map={await shared('riskHeatMap', () => riskHeatMap(ctx.db, viewer))} />,
  },
  {
    key: 'risksByBand', title: 'Risks by band', needs: 'risks:read',
    render: async (ctx, viewer, shared) => <RisksByBand map={await shared('riskHeatMap', () => riskHeatMap(ctx.db, viewer))} />,
  },
];
