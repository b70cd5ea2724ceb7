import { readable } from '../../platform/record-screens/record-views';
import { t } from 'elysia';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { renderScreen } from '../../platform/http/screen';
import type { accountReviewPrograms } from '../../../db/schema';
import { runWrite, type AppContext } from '../../platform/http/context';
import { invalid } from '../../platform/core/errors';
import { schemaProblems } from '../../platform/http/form-input';
import { canTouch, type Actor } from '../../platform/permissions/permissions';
import { recordPages, OWNER_FIELDS, ownerColumn } from '../../platform/record-screens/record-pages';
import { getRecord, type RecordView } from '../../platform/records/records';
import { DECISIONS, ItemCreate, ItemDecision, PROGRAM_STATUSES, ProgramCreate, ProgramUpdate } from './schema';
import { addItem, decideItem, itemCounts, itemProgram, listItems, newItemProblems, programForItemWrite, programKind } from './service';
import { CsvRefusal } from '../../platform/csv/parse';
import { currentItemsCsv, importReviewItems, itemTemplate } from './import';
import { ItemImport, ItemsSection, type ItemImportProps, type ItemsSectionProps } from './views';

type ProgramView = RecordView<typeof accountReviewPrograms>;

const pageNumber = (raw: string | undefined) => (raw && /^\d{1,6}$/.test(raw) ? Math.max(1, Number(raw)) : 1);

export function accountReviewPages(ctx: AppContext) {
  const section = async (
    program: ProgramView, viewer: Actor, csrfToken: string, page = 1, refused: Pick<ItemsSectionProps, 'errors' | 'error' | 'values'> = {},
  ) => {
    const [items, counts] = await Promise.all([listItems(ctx.db, viewer, program.id, { page }), itemCounts(ctx.db, program.id)]);
    const canDecide = canTouch(viewer, 'accountReviews:update', program) && program.status === 'open';
    return (
      <ItemsSection programId={program.id} page={items} counts={counts} canDecide={canDecide} closed={program.status === 'closed'}
        csrfToken={csrfToken} {...refused}
        importControl={canDecide ? <p class="actions"><a class="button" href={`/account-reviews/${program.id}/items/import`}>Import CSV</a></p> : undefined} />
    );
  };
  const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: 'accountReviews' });

  return recordPages(ctx, programKind, {
    path: '/account-reviews',
    title: 'Account reviews',
    singular: 'Review program',
    navKey: 'accountReviews',
    Create: ProgramCreate,
    Update: ProgramUpdate,
    statuses: PROGRAM_STATUSES,
    fields: [
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'textarea' },
      { name: 'status', label: 'Status', kind: 'select', options: PROGRAM_STATUSES, hint: 'Blank gives open; a closed program refuses decisions' },
      { name: 'dueOn', label: 'Due on', kind: 'date' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Name', value: (p) => p.name, link: true, sort: 'name' },
      { header: 'Status', value: (p) => readable(p.status), sort: 'status' },
      { header: 'Due on', value: (p) => p.dueOn, sort: 'dueOn' },
      ownerColumn(),
    ],
    sections: (view, viewer, csrfToken) => section(view, viewer, csrfToken),
  })
    // Paging through the items: the section alone for htmx, else the program's items on a page of their own.
    // An item's address (History and the Audit Log link items there): its program's list of items.
    .get('/account-reviews/items/:itemId', async ({ viewer, params, redirect }) => redirect(`/account-reviews/${await itemProgram(ctx.db, viewer, params.itemId)}/items`, 303),
      { page: 'accountReviews:read' })
    .get('/account-reviews/:id/items', async ({ viewer, csrfToken, headers, params, query }) => {
      const program = await getRecord(ctx.db, programKind, viewer, params.id);
      const content = await section(program, viewer, csrfToken, pageNumber(query.page));
      if (headers['hx-request'] === 'true' && headers['hx-target']) return content;
      return renderScreen(headers, shell(program.name, viewer, csrfToken),
        <div><p><a href={`/account-reviews/${program.id}`} safe>{`← ${program.name}`}</a></p>{content}</div>);
    }, { page: 'accountReviews:read' })
    .post('/account-reviews/:id/items', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const values = { account: formText(body, 'account'), system: formText(body, 'system'), owner: formText(body, 'owner').trim(), notes: formText(body, 'notes') };
      const input = { account: values.account, system: values.system, ...(values.owner ? { owner: values.owner } : {}), notes: values.notes };
      const result = await attempt(async () => {
        const problems = schemaProblems(ItemCreate, input);
        if (problems.length) {
          // Report the service's findings too, so every problem shows at once.
          await programForItemWrite(ctx.db, viewer, params.id);
          const more = (await newItemProblems(ctx.db, params.id, input)).filter((p) => !problems.some((q) => q.field === p.field));
          throw invalid([...problems, ...more]);
        }
        return runWrite(ctx, (tx) => addItem(tx, viewer, params.id, input as ItemCreate));
      });
      if (result.ok) return redirect(`/account-reviews/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      const program = await getRecord(ctx.db, programKind, viewer, params.id);
      const refused = { errors: fieldErrors(result.error.problems), error: result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message, values };
      return renderScreen(headers, shell(program.name, viewer, csrfToken),
        <div><p><a href={`/account-reviews/${program.id}`} safe>{`← ${program.name}`}</a></p>{await section(program, viewer, csrfToken, 1, refused)}</div>);
    }, { page: 'accountReviews:update' })
    // Import CSV on a review program: the same run as the REST import (check, then apply only when every row succeeds).
    .get('/account-reviews/:id/items/import', async ({ viewer, csrfToken, headers, params }) => {
      const program = await programForItemWrite(ctx.db, viewer, params.id);
      return renderScreen(headers, shell(`Import accounts into ${program.name}`, viewer, csrfToken),
        <ItemImport programId={program.id} programName={program.name} csrfToken={csrfToken} />);
    }, { page: 'accountReviews:update' })
    .get('/account-reviews/:id/items/import/template.csv', async ({ viewer, params, set }) => {
      await getRecord(ctx.db, programKind, viewer, params.id);
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = 'attachment; filename="account-review-items.csv"';
      return itemTemplate();
    }, { page: 'accountReviews:update' })
    .get('/account-reviews/:id/items/import/current.csv', async ({ viewer, params, set }) => {
      const { csv, truncated } = await currentItemsCsv(ctx.db, viewer, params.id);
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = 'attachment; filename="account-review-items-current.csv"';
      if (truncated) set.headers['x-truncated'] = 'first 5000 items only';
      return csv;
    }, { page: 'accountReviews:read' })
    .post('/account-reviews/:id/items/import/:mode', async ({ viewer, csrfToken, headers, params, body, set }) => {
      const program = await programForItemWrite(ctx.db, viewer, params.id);
      const mode = params.mode === 'apply' ? 'apply' : 'check';
      const upload = (body as Record<string, unknown> | undefined)?.file;
      const file = mode === 'check'
        ? { name: upload instanceof File ? upload.name : 'upload.csv', bytes: upload instanceof File ? new Uint8Array(await upload.arrayBuffer()) : new Uint8Array() }
        : { name: formText(body, 'fileName'), bytes: new TextEncoder().encode(formText(body, 'csv')) };
      const props: ItemImportProps = { programId: program.id, programName: program.name, csrfToken };
      try {
        props.result = await importReviewItems(ctx.db, viewer, program.id, file, mode);
        if (mode === 'check') props.csv = new TextDecoder().decode(file.bytes);
        if (props.result.outcome === 'refused') set.status = 422;
      } catch (error) {
        if (!(error instanceof CsvRefusal)) throw error;
        set.status = 422;
        props.refusal = error.message;
      }
      return renderScreen(headers, shell(`Import accounts into ${program.name}`, viewer, csrfToken), <ItemImport {...props} />);
    }, { page: 'accountReviews:update', params: t.Object({ id: t.String(), mode: t.UnionEnum(['check', 'apply']) }) })
    .post('/account-reviews/:id/items/:itemId/decision', async ({ viewer, params, body, redirect }) => {
      const decision = formText(body, 'decision');
      if (!(DECISIONS as readonly string[]).includes(decision)) throw invalid([{ field: 'decision', message: 'choose keep, revoke or modify' }]);
      const input: ItemDecision = { decision: decision as ItemDecision['decision'] };
      await runWrite(ctx, (tx) => decideItem(tx, viewer, params.id, params.itemId, input));
      return redirect(`/account-reviews/${params.id}?done=updated`, 303);
    }, { page: 'accountReviews:update' });
}
