import { readable } from '../../platform/record-screens/record-views';
import { runWrite, type AppContext } from '../../platform/http/context';
import { schemaProblems } from '../../platform/http/form-input';
import { invalid } from '../../platform/core/errors';
import { canTouch, type Actor } from '../../platform/permissions/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { formText } from '../../platform/http/form-input';
import { CONTROL_STATUSES, CONTROL_TYPES, ControlCreate, ControlTestCreate, ControlUpdate } from './schema';
import { controlKind, controlTesting, recordControlTest } from './service';
import { TestingSection, type ControlView } from './views';

/** The testing schedule, with a form to record a test for those who may update the control. */
async function testingSection(ctx: AppContext, view: ControlView, viewer: Actor, csrfToken: string): Promise<JSX.Element> {
  const testing = await controlTesting(ctx.db, viewer, view.id);
  const canRecord = canTouch(viewer, 'controls:update', view);
  return <TestingSection view={view} testing={testing} canRecord={canRecord} csrfToken={csrfToken} />;
}

export const controlPages = (ctx: AppContext) =>
  recordPages(ctx, controlKind, {
    path: '/controls',
    title: 'Controls',
    singular: 'Control',
    navKey: 'controls',
    Create: ControlCreate,
    Update: ControlUpdate,
    statuses: CONTROL_STATUSES,
    importable: true,
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'textarea' },
      { name: 'type', label: 'Type', kind: 'select', options: CONTROL_TYPES, hint: 'Blank gives process' },
      { name: 'status', label: 'Status', kind: 'select', options: CONTROL_STATUSES, hint: 'Blank gives active' },
      { name: 'testFrequencyMonths', label: 'Test every (months)', kind: 'number', hint: '1 to 120; blank for no schedule' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Name', value: (c) => c.name, link: true, sort: 'name' },
      { header: 'Type', value: (c) => readable(c.type), sort: 'type' },
      { header: 'Status', value: (c) => readable(c.status), sort: 'status' },
      ownerColumn(),
    ],
    sections: (view, viewer, csrfToken) => testingSection(ctx, view, viewer, csrfToken),
  })
    .post('/controls/:id/tests', async ({ viewer, params, body, redirect }) => {
      const input = { testedOn: formText(body, 'testedOn'), result: formText(body, 'result'), notes: formText(body, 'notes') };
      const problems = schemaProblems(ControlTestCreate, input);
      if (problems.length) throw invalid(problems);
      await runWrite(ctx, (tx) => recordControlTest(tx, viewer, params.id, input as ControlTestCreate));
      return redirect(`/controls/${params.id}?done=updated`, 303);
    }, { page: 'controls:update' });
