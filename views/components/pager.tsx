import { LIST_SYNC } from './filter-bar';

export interface PagerProps {
  page: number;
  pageSize: number;
  total: number;
  /** Builds the address of another page (keeps the current filters). */
  href: (page: number) => string;
  /**
   * When set, links also load by htmx into this target, taking the element of that id from the answer (a page or the
   * results alone); the links still work without JavaScript.
   */
  target?: string;
  /** Whether a page link also puts its address in the browser's (default yes; a section inside a record page pages in place). */
  push?: boolean;
  /** The pager's name for screen readers, where a page holds several ('Requirements: pages'). */
  label?: string;
}

/**
 * Previous / next paging with "rows x–y of n"; plain links, boosted by htmx when a target is given. The answer is the
 * whole screen's content, so only the target is taken from it (hx-select): without it the filter bar and the results
 * would be nested inside the old results.
 */
export function Pager({ page, pageSize, total, href, target, push = true, label: name = 'Pages' }: PagerProps): JSX.Element {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  const link = (to: number, label: string, rel: string) =>
    to < 1 || to > pages
      ? <span class="disabled" safe>{label}</span>
      : <a href={href(to)} rel={rel} hx-get={target ? href(to) : undefined} hx-target={target} hx-select={target} hx-swap={target ? 'outerHTML' : undefined}
          hx-push-url={target && push ? 'true' : undefined} hx-sync={target ? LIST_SYNC : undefined} safe>{label}</a>;
  return (
    <nav class="pager" aria-label={name}>
      <span class="muted">{`${first}–${last} of ${total}`}</span>
      {link(page - 1, '← Previous', 'prev')}
      <span>{`Page ${page} of ${pages}`}</span>
      {link(page + 1, 'Next →', 'next')}
    </nav>
  );
}
