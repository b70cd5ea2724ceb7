import type { DashboardWidget } from '../../platform/dashboard/declarations';
import { packageScores } from './analyses-service';
import { listPackages } from './packages-service';
import { ComplianceScores } from './views/dashboard';

/** Packages shown on the Dashboard; the rest are one link away. */
const SHOWN = 20;

/** The compliance score per package the viewer may read (the Packages list's, with the same own/all rule). */
export const complianceWidgets: DashboardWidget[] = [{
  key: 'complianceScores', title: 'Compliance by package', needs: 'compliance:read',
  async render(ctx, viewer) {
    const packages = await listPackages(ctx.db, viewer, { pageSize: SHOWN, sort: 'name' });
    const scores = await packageScores(ctx.db, viewer, packages.rows.map((p) => p.id));
    return <ComplianceScores packages={packages.rows.map((p) => ({ id: p.id, name: p.name, score: scores.get(p.id) }))} more={packages.total - packages.rows.length} />;
  },
}];
