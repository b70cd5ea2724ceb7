import { Elysia } from 'elysia';
import { and, asc, desc, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { AppContext } from '../http/context';
import { renderScreen } from '../http/screen';
import { screenAuth } from '../http/screen-auth';
import { notFound } from '../core/errors';
import { isUuid } from '../core/uuid';
import { ownershipCondition } from '../permissions/ownership';
import { levelOf, requirePermission, type Actor, type Permission } from '../permissions/permissions';
import { RESTRICTED_NAME } from './links';
import { DataTable } from '../../../views/components/table';
import { Pager } from '../../../views/components/pager';
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
  /**
   * Further columns after it, shown and exported but not sorted by (evidence: its kind, status, lock), as text; a
   * column naming another record reads it as the viewer may see it (`linkedNameSql`).
   */
  columns?: readonly LinkedColumn[];
  /**
   * The first column in place of the listed record's name, for records that are part of the host and named by it (a
   * control's tests by their date): sorted and exported as the name is; `link: false` when the listed record's page is
   * the host's own.
   */
  name?: { header: string; value(listed: RecordTypeDeclaration): SQL<string>; link?: boolean };
  /** The order the section opens in (newest test first: '-title' with the date as name); by name by default. */
  defaultSort?: LinkedSort;
  /** A link below the table to add one (New DPIA), to those holding `needs`. */
  create?: { label: string; href(hostId: string): string; needs: Permission };
}

/** A further column of a section; with `link`, a column naming another record, linked to its page where readable. */
export interface LinkedColumn {
  header: string;
  value(listed: RecordTypeDeclaration, viewer: Actor): SQL<string | null>;
  link?: { kind: string; id: SQL | AnyColumn };
}

/** A column naming the record of `kind` that `id` points at (`none` where there is none), linked where the viewer may read it. */
export const linkedRecordColumn = (header: string, kind: string, id: SQL | AnyColumn, none = ''): LinkedColumn => ({
  header, link: { kind, id }, value: (_listed, viewer) => sql<string>`coalesce(${linkedNameSql(viewer, kind, id)}, ${none})`,
});

/**
 * The name of the record of `kind` that `id` points at, as the viewer may see it, for a section's column: the name
 * where they may read it, "(restricted)" where not, null where none. `kind` must not be the listed type (its table
 * would be named twice).
 */
export function linkedNameSql(viewer: Actor, kind: string, id: SQL | AnyColumn): SQL<string | null> {
  const type = recordType(kind);
  const read = readPermission(type);
  if (levelOf(viewer, read) === null) return sql<string | null>`case when ${id} is null then null else ${RESTRICTED_NAME} end`;
  const mine = ownershipCondition(viewer, read, type.ownerId, type.ownerGroupId);
  const name = mine ? sql`case when ${mine} then ${type.title} else ${RESTRICTED_NAME} end` : sql`${type.title}`;
  const from = type.join ? sql`${type.table} inner join ${type.join.table} on ${type.join.on}` : sql`${type.table}`;
  return sql<string | null>`(select ${name} from ${from} where ${type.id} = ${id})`;
}

export const LINKED_PAGE_SIZE = 25;
/** Rows a section's CSV download holds at most (as the registers' Export). */
export const LINKED_EXPORT_LIMIT = 5_000;

/** How a section may be sorted: by the listed record's name (the default) or by the detail column, either way. */
const LINKED_SORTS = ['title', '-title', 'detail', '-detail'] as const;
export type LinkedSort = (typeof LINKED_SORTS)[number];
/** A sort as an address holds it; anything else (or a detail sort of a section without one) reads as the section's default. */
export const linkedSortOf = (links: LinkedRecords, value: unknown): LinkedSort => {
  const fallback = links.defaultSort ?? 'title';
  const sort = LINKED_SORTS.find((s) => s === value) ?? fallback;
  return sort.endsWith('detail') && !links.detail ? fallback : sort;
};

interface LinkedRow { id: string; title: string; parentId: string | null; detail: string | null; more: (string | null)[] | null; moreIds: (string | null)[] | null }

export interface LinkedPage {
  rows: { title: string; href: string; detail: string | null; more: (string | null)[]; moreHrefs: (string | null)[] }[];
  /** Linked records the reader may read, and those they may not (counted, never named). */
  total: number;
  restricted: number;
  page: number;
  sort: LinkedSort;
  /** Whether the viewer may add one here (the section's `create` link). */
  canCreate: boolean;
}

/** One page of the records linked to `hostId` that the viewer may read; null when they may not read the listed type. */
export async function linkedPage(ctx: AppContext, viewer: Actor, links: LinkedRecords, hostId: string, page: number, sort: LinkedSort = links.defaultSort ?? 'title',
  pageSize = LINKED_PAGE_SIZE): Promise<LinkedPage | null> {
  const type = recordType(links.listed);
  const read = readPermission(type);
  if (levelOf(viewer, read) === null) return null;
  const title = links.name ? links.name.value(type) : sql<string>`${type.title}`;
  const linked = sql`${type.id} in (${links.ids(hostId)})`;
  const mine = ownershipCondition(viewer, read, type.ownerId, type.ownerGroupId);
  const countBase = ctx.db.select({
    all: sql<number>`count(*)::int`,
    readable: mine ? sql<number>`(count(*) filter (where ${mine}))::int` : sql<number>`count(*)::int`,
  }).from(type.table);
  const [counts] = await (type.join ? countBase.innerJoin(type.join.table, type.join.on) : countBase).where(linked);
  const detail = links.detail ? links.detail.value(hostId, type) : sql<string | null>`null`;
  const rowBase = ctx.db.select({
    id: sql<string>`${type.id}::text`, title,
    parentId: type.parent ? sql<string | null>`${type.parent.id}::text` : sql<string | null>`null`,
    detail,
    more: links.columns?.length ? sql<(string | null)[]>`array[${sql.join(links.columns.map((c) => sql`coalesce((${c.value(type, viewer)})::text, '')`), sql`, `)}]` : sql<null>`null`,
    moreIds: links.columns?.some((c) => c.link)
      ? sql<(string | null)[]>`array[${sql.join(links.columns.map((c) => (c.link ? sql`coalesce((${c.link.id})::text, '')` : sql`''`)), sql`, `)}]` : sql<null>`null`,
  }).from(type.table);
  const byName = sort === '-title' ? [desc(title), desc(type.id)] : [asc(title), asc(type.id)];
  // By the detail column: blanks last either way, then by name.
  const order = sort === 'detail' ? [sql`${detail} asc nulls last`, ...byName] : sort === '-detail' ? [sql`${detail} desc nulls last`, ...byName] : byName;
  const rows: LinkedRow[] = await (type.join ? rowBase.innerJoin(type.join.table, type.join.on) : rowBase).where(and(linked, mine))
    .orderBy(...order).limit(pageSize).offset((page - 1) * pageSize);
  return {
    rows: rows.map((row) => ({
      title: row.title, href: type.href(row.id, row.parentId), detail: row.detail, more: row.more ?? [],
      // A linked record's page only where its name is shown (not "(restricted)").
      moreHrefs: (links.columns ?? []).map((c, i) => {
        const id = row.moreIds?.[i];
        return c.link && id && row.more?.[i] !== RESTRICTED_NAME ? recordType(c.link.kind).href(id, null) : null;
      }),
    })),
    total: counts.readable, restricted: counts.all - counts.readable, page, sort,
    canCreate: links.create !== undefined && levelOf(viewer, links.create.needs) !== null,
  };
}

const elementId = (links: LinkedRecords) => `linked-${links.key}`;

/** A type's name inside a sentence: lower case, acronyms kept ("2 DPIAs", "3 control tests"). */
const inSentence = (noun: string) => noun.split(' ').map((word) => (/^[A-Z]{2,}/.test(word) ? word : word.toLowerCase())).join(' ');

/** A section's address (its page, sort or CSV download), the sort left out when the section's default and the page when the first. */
function sectionHref(host: RecordTypeDeclaration, hostId: string, links: LinkedRecords, change: { page?: number; sort?: LinkedSort; csv?: boolean }): string {
  const params = new URLSearchParams();
  if ((change.page ?? 1) > 1) params.set('page', String(change.page));
  if (change.sort && change.sort !== (links.defaultSort ?? 'title')) params.set('sort', change.sort);
  const query = params.toString();
  return `/linked/${host.kind}/${hostId}/${links.key}${change.csv ? '/export.csv' : ''}${query ? `?${query}` : ''}`;
}

/**
 * The section: how many linked records the reader may read with the Export of them all, the table whose headers sort it
 * and the pager, each loading the section alone in place by htmx (the record page keeps its address; the section's own
 * address, which works without script, holds the page and sort).
 */
function LinkedSection({ host, hostId, links, view }: { host: RecordTypeDeclaration; hostId: string; links: LinkedRecords; view: LinkedPage }): JSX.Element {
  const type = recordType(links.listed);
  const id = elementId(links);
  const heading = links.heading ?? type.plural;
  const count = `${view.total.toLocaleString('en')} ${inSentence(view.total === 1 ? type.label : type.plural)}`;
  return (
    <section id={id} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} safe>{heading}</h2>
      {view.total > 0 && (
        <p class="results-bar">
          <span class="muted" safe>{count}</span>
          <a class="button secondary small" href={sectionHref(host, hostId, links, { sort: view.sort, csv: true })} download="" aria-label={`Export CSV of ${inSentence(heading)}`}>Export CSV</a>
        </p>
      )}
      <DataTable
        rows={view.rows}
        empty={links.empty ?? `No ${inSentence(type.plural)} linked.`}
        sort={view.total > 1 ? { current: view.sort, href: (sort) => sectionHref(host, hostId, links, { sort: linkedSortOf(links, sort) }), target: `#${id}`, push: false } : undefined}
        columns={[
          { header: links.name?.header ?? type.label, sort: 'title', cell: (row) => (links.name?.link === false ? <span safe>{row.title}</span> : <a href={row.href} safe>{row.title}</a>) },
          ...(links.detail ? [{ header: links.detail.header, sort: 'detail', cell: (row: LinkedPage['rows'][number]) => <span safe>{row.detail ?? ''}</span> }] : []),
          ...(links.columns ?? []).map((c, i) => ({
            header: c.header,
            cell: (row: LinkedPage['rows'][number]) => {
              const href = row.moreHrefs[i];
              return href ? <a href={href} safe>{row.more[i] ?? ''}</a> : <span safe>{row.more[i] ?? ''}</span>;
            },
          })),
        ]}
      />
      {view.total > LINKED_PAGE_SIZE && (
        <Pager page={view.page} pageSize={LINKED_PAGE_SIZE} total={view.total} href={(to) => sectionHref(host, hostId, links, { page: to, sort: view.sort })}
          target={`#${id}`} push={false} label={`${heading}: pages`} />
      )}
      {view.restricted > 0 && (
        <p class="muted" safe>{`${view.restricted} more linked ${inSentence(view.restricted === 1 ? type.label : type.plural)} you may not read.`}</p>
      )}
      {links.create && view.canCreate && <p><a class="button secondary" href={links.create.href(hostId)} safe>{links.create.label}</a></p>}
    </section>
  );
}

/** Sections by host kind and key, for the paging address. */
const declaredSections = new Map<string, LinkedRecords>();

/** The section listing `links` on the pages of `host` records (what a manifest's `sections` provider returns). */
export function linkedRecordsSection(host: RecordTypeDeclaration, links: LinkedRecords): RecordSection {
  declaredSections.set(`${host.kind}/${links.key}`, links);
  return async (ctx, recordId, viewer) => {
    const view = await linkedPage(ctx, viewer, links, recordId, 1, links.defaultSort);
    return view && <LinkedSection host={host} hostId={recordId} links={links} view={view} />;
  };
}

/** The host record and the section of an address, the viewer holding read on both (403 or 404 as for any link). */
export async function linkedSectionOf(ctx: AppContext, viewer: Actor, params: { kind: string; id: string; key: string }) {
  const host = findRecordType(params.kind);
  if (host) providedSections(host); // declares the type's linked sections
  const links = declaredSections.get(`${params.kind}/${params.key}`);
  if (!host || !links || !isUuid(params.id)) throw notFound('section');
  const record = await requireTypedRecord(ctx.db, viewer, host, params.id);
  requirePermission(viewer, readPermission(recordType(links.listed)));
  return { host, links, record };
}

/** A section's other pages and orders: the host record must be one the viewer may read (its CSV download: record-screens/linked-records-export.ts). */
export const linkedRecordsPages = (ctx: AppContext) => new Elysia({ name: 'platform:linked-records' })
  .use(screenAuth(ctx))
  .get('/linked/:kind/:id/:key', async ({ viewer, csrfToken, headers, params, query }) => {
    const { host, links, record } = await linkedSectionOf(ctx, viewer, params);
    const asked = /^[1-9][0-9]{0,5}$/.test(String(query.page ?? '')) ? Number(query.page) : 1;
    const view = await linkedPage(ctx, viewer, links, params.id, asked, linkedSortOf(links, query.sort));
    if (!view) throw notFound('section');
    return renderScreen(headers, { title: `${links.heading ?? recordType(links.listed).plural}: ${record.row.title}`, viewer, csrfToken }, (
      <>
        <p class="actions"><a href={host.href(params.id, record.row.parentId)} safe>{`← ${record.row.title}`}</a></p>
        <LinkedSection host={host} hostId={params.id} links={links} view={view} />
      </>
    ));
  }, { page: true });
