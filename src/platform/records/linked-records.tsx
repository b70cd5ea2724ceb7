import { Elysia } from 'elysia';
import { and, asc, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../http/context';
import { renderScreen } from '../http/screen';
import { screenAuth } from '../http/screen-auth';
import { notFound } from '../core/errors';
import { isUuid } from '../core/uuid';
import { ownershipCondition } from '../permissions/ownership';
import { levelOf, requirePermission, type Actor } from '../permissions/permissions';
import { DataTable } from '../../../views/components/table';
import { findRecordType, providedSections, readPermission, recordType, requireTypedRecord, type RecordSection, type RecordTypeDeclaration } from './record-types';

/**
 * "What links here": a section on a record's page listing the records of another declared type linked to it, from
 * the side that does not hold the link (the requirements a control is mapped to, the risks of an asset). The module
 * owning the link declares it in its manifest's `sections` provider; the listed records' names, screens and access
 * rules come from their type's declaration, so the section never names a record the reader may not read: without the
 * listed type's read right it is not shown, and at level own the linked records the reader may not read are only
 * counted. Long lists are paged (PAGE_SIZE a page) in place, by htmx, through GET /linked/:kind/:id/:key.
 */
export interface LinkedRecords {
  /** Unique among the sections of the host type: names the section's element and its paging address. */
  key: string;
  /** The declared kind of the records listed. */
  listed: string;
  /** The section's heading; the listed type's plural by default. */
  heading?: string;
  /** What the section says when nothing is linked. */
  empty?: string;
  /** The ids of the listed records linked to the host record (a subquery selecting one column). */
  ids(hostId: string): SQL;
  /** A column telling how each listed record is linked (the treatments relying on a control), built from the listed type's table. */
  detail?: { header: string; value(hostId: string, listed: RecordTypeDeclaration): SQL<string | null> };
}

export const LINKED_PAGE_SIZE = 25;

interface LinkedRow { id: string; title: string; parentId: string | null; detail: string | null }

export interface LinkedPage {
  rows: { title: string; href: string; detail: string | null }[];
  /** Linked records the reader may read, and those they may not (counted, never named). */
  total: number;
  restricted: number;
  page: number;
}

/** One page of the records linked to `hostId` that the viewer may read; null when they may not read the listed type. */
export async function linkedPage(ctx: AppContext, viewer: Actor, links: LinkedRecords, hostId: string, page: number): Promise<LinkedPage | null> {
  const type = recordType(links.listed);
  const read = readPermission(type);
  if (levelOf(viewer, read) === null) return null;
  const title = sql<string>`${type.title}`;
  const linked = sql`${type.id} in (${links.ids(hostId)})`;
  const mine = ownershipCondition(viewer, read, type.ownerId, type.ownerGroupId);
  const countBase = ctx.db.select({
    all: sql<number>`count(*)::int`,
    readable: mine ? sql<number>`(count(*) filter (where ${mine}))::int` : sql<number>`count(*)::int`,
  }).from(type.table);
  const [counts] = await (type.join ? countBase.innerJoin(type.join.table, type.join.on) : countBase).where(linked);
  const rowBase = ctx.db.select({
    id: sql<string>`${type.id}::text`, title,
    parentId: type.parent ? sql<string | null>`${type.parent.id}::text` : sql<string | null>`null`,
    detail: links.detail ? links.detail.value(hostId, type) : sql<string | null>`null`,
  }).from(type.table);
  const rows: LinkedRow[] = await (type.join ? rowBase.innerJoin(type.join.table, type.join.on) : rowBase).where(and(linked, mine))
    .orderBy(asc(title), asc(type.id)).limit(LINKED_PAGE_SIZE).offset((page - 1) * LINKED_PAGE_SIZE);
  return {
    rows: rows.map((row) => ({ title: row.title, href: type.href(row.id, row.parentId), detail: row.detail })),
    total: counts.readable, restricted: counts.all - counts.readable, page,
  };
}

const elementId = (links: LinkedRecords) => `linked-${links.key}`;

function LinkedSection({ host, hostId, links, view }: { host: RecordTypeDeclaration; hostId: string; links: LinkedRecords; view: LinkedPage }): JSX.Element {
  const type = recordType(links.listed);
  const id = elementId(links);
  const pages = Math.max(1, Math.ceil(view.total / LINKED_PAGE_SIZE));
  const href = (to: number) => `/linked/${host.kind}/${hostId}/${links.key}?page=${to}`;
  const pageLink = (to: number, label: string, rel: string) => (to < 1 || to > pages
    ? <span class="disabled" safe>{label}</span>
    : <a href={href(to)} rel={rel} hx-get={href(to)} hx-target={`#${id}`} hx-swap="outerHTML" safe>{label}</a>);
  const first = view.total === 0 ? 0 : (view.page - 1) * LINKED_PAGE_SIZE + 1;
  const last = Math.min(view.total, view.page * LINKED_PAGE_SIZE);
  return (
    <section id={id} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} safe>{links.heading ?? type.plural}</h2>
      <DataTable
        rows={view.rows}
        empty={links.empty ?? `No ${type.plural.toLowerCase()} linked.`}
        columns={[
          { header: type.label, cell: (row) => <a href={row.href} safe>{row.title}</a> },
          ...(links.detail ? [{ header: links.detail.header, cell: (row: LinkedPage['rows'][number]) => <span safe>{row.detail ?? ''}</span> }] : []),
        ]}
      />
      {pages > 1 && (
        <nav class="pager" aria-label={`${links.heading ?? type.plural}: pages`}>
          <span class="muted" safe>{`${first}–${last} of ${view.total}`}</span>
          {pageLink(view.page - 1, '← Previous', 'prev')}
          <span safe>{`Page ${view.page} of ${pages}`}</span>
          {pageLink(view.page + 1, 'Next →', 'next')}
        </nav>
      )}
      {view.restricted > 0 && (
        <p class="muted" safe>{`${view.restricted} more linked ${view.restricted === 1 ? type.label.toLowerCase() : type.plural.toLowerCase()} you may not read.`}</p>
      )}
    </section>
  );
}

/** Sections by host kind and key, for the paging address. */
const declaredSections = new Map<string, LinkedRecords>();

/** The section listing `links` on the pages of `host` records (what a manifest's `sections` provider returns). */
export function linkedRecordsSection(host: RecordTypeDeclaration, links: LinkedRecords): RecordSection {
  declaredSections.set(`${host.kind}/${links.key}`, links);
  return async (ctx, recordId, viewer) => {
    const view = await linkedPage(ctx, viewer, links, recordId, 1);
    return view && <LinkedSection host={host} hostId={recordId} links={links} view={view} />;
  };
}

/** A section's other pages: the host record must be one the viewer may read (403 or 404 as for any link). */
export const linkedRecordsPages = (ctx: AppContext) => new Elysia({ name: 'platform:linked-records' })
  .use(screenAuth(ctx))
  .get('/linked/:kind/:id/:key', async ({ viewer, csrfToken, headers, params, query }) => {
    const host = findRecordType(params.kind);
    if (host) providedSections(host); // declares the type's linked sections
    const links = declaredSections.get(`${params.kind}/${params.key}`);
    if (!host || !links || !isUuid(params.id)) throw notFound('section');
    const record = await requireTypedRecord(ctx.db, viewer, host, params.id);
    requirePermission(viewer, readPermission(recordType(links.listed)));
    const asked = /^[1-9][0-9]{0,5}$/.test(String(query.page ?? '')) ? Number(query.page) : 1;
    const view = await linkedPage(ctx, viewer, links, params.id, asked);
    if (!view) throw notFound('section');
    return renderScreen(headers, { title: `${links.heading ?? recordType(links.listed).plural}: ${record.row.title}`, viewer, csrfToken }, (
      <>
        <p class="actions"><a href={host.href(params.id, record.row.parentId)} safe>{`← ${record.row.title}`}</a></p>
        <LinkedSection host={host} hostId={params.id} links={links} view={view} />
      </>
    ));
  }, { page: true });
