/// <reference types="@kitajs/html/htmx.d.ts" />
import Html from '@kitajs/html';
import { levelOf, type Actor, type Permission } from '../src/platform/permissions';
import { MAIN_LINKS } from './nav';

/** True for an htmx request that wants a fragment (a boosted navigation wants the whole page). */
export function isHtmx(headers: Record<string, string | undefined> | Headers): boolean {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? undefined;
  return get('hx-request') === 'true' && get('hx-boosted') !== 'true';
}

interface NavLink {
  href: string;
  label: string;
  key: string;
  /** The permission needed to open the page; level 'all' when only administrators may. */
  needs: Permission;
  level?: 'all';
}

const SETTINGS_LINKS: NavLink[] = [
  { key: 'risk-settings', href: '/settings/risks', label: 'Risk settings', needs: 'settings:read' },
  { key: 'incident-settings', href: '/settings/incidents', label: 'Incident classifications', needs: 'settings:read' },
  { key: 'labels', href: '/settings/labels', label: 'Labels', needs: 'settings:read' },
  { key: 'policy-settings', href: '/settings/policies', label: 'Policy settings', needs: 'settings:read' },
  { key: 'custom-fields', href: '/settings/custom-fields', label: 'Custom fields', needs: 'customFields:read' },
  { key: 'api-tokens', href: '/settings/api-tokens', label: 'API tokens', needs: 'apiTokens:read' },
  { key: 'sessions', href: '/settings/sessions', label: 'Sessions', needs: 'settings:read' },
  { key: 'users', href: '/settings/users', label: 'Users', needs: 'settings:read' },
  { key: 'groups', href: '/settings/groups', label: 'Groups', needs: 'settings:read' },
  { key: 'roles', href: '/settings/roles', label: 'Roles', needs: 'settings:read' },
  { key: 'provisioning', href: '/settings/provisioning', label: 'Provisioning', needs: 'settings:read' },
  { key: 'outbox', href: '/settings/outbox', label: 'Outbox', needs: 'settings:read', level: 'all' },
  { key: 'audit', href: '/settings/audit', label: 'Audit log', needs: 'settings:read', level: 'all' },
];

const mayOpen = (viewer: Actor, link: Pick<NavLink, 'needs' | 'level'>) => {
  const level = levelOf(viewer, link.needs);
  return link.level === 'all' ? level === 'all' : level !== null;
};

/** The Settings pages this viewer may open (used by the nav and by the Settings index). */
export const settingsLinksFor = (viewer: Actor) => SETTINGS_LINKS.filter((link) => mayOpen(viewer, link));

export interface LayoutProps {
  title: string;
  viewer: Actor;
  csrfToken: string;
  /** Key of the current section: 'risks' or a Settings key such as 'api-tokens'. */
  active?: string;
  children?: JSX.Element;
}

const HTMX_CONFIG = JSON.stringify({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false });

/** The document head shared by the shell and the bare pages. */
function PageHead({ title, htmx = false }: { title: string; htmx?: boolean }): JSX.Element {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title safe>{`${title} · GRC`}</title>
      <link rel="stylesheet" href="/static/app.css" />
      {/* Under the Content-Security-Policy htmx may not add its own style element or evaluate script from attributes. */}
      {htmx && <meta name="htmx-config" content={HTMX_CONFIG} />}
      {htmx && <script src="/static/htmx.min.js" defer></script>}
    </head>
  );
}

/** The app shell: every signed-in page renders inside it; htmx fragments render the page's content component alone. */
export function Layout({ title, viewer, csrfToken, active, children }: LayoutProps): JSX.Element {
  const settings = settingsLinksFor(viewer);
  const inSettings = settings.some((link) => link.key === active);
  const current = (key: string) => (key === active ? 'page' : undefined);
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
        <PageHead title={title} htmx />
        <body hx-headers={JSON.stringify({ 'x-csrf-token': csrfToken })}>
          <header class="topbar">
            <a class="brand" href="/">GRC</a>
            <nav class="mainnav" aria-label="Main">
              {MAIN_LINKS.filter((link) => mayOpen(viewer, link)).map((link) => (
                <a href={link.href} aria-current={current(link.key)} safe>{link.label}</a>
              ))}
              {settings.length > 0 && (
                <details class="menu" open={inSettings}>
                  <summary>Settings</summary>
                  <ul>
                    {settings.map((link) => (
                      <li>
                        <a href={link.href} aria-current={current(link.key)} safe>{link.label}</a>
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </nav>
            <div class="whoami">
              <a class="email" href="/settings/password" title="Change your password" safe>{viewer.email ?? ''}</a>
              <form method="post" action="/sign-out" class="inline">
                <input type="hidden" name="_csrf" value={csrfToken} />
                <button type="submit" class="link">Sign out</button>
              </form>
            </div>
          </header>
          <main id="main">
            <h1 safe>{title}</h1>
            {children}
          </main>
        </body>
      </html>
    </>
  );
}

/**
 * A screen's response: the content alone for an htmx request, the content inside the shell otherwise,
 * so both render the very same component.
 */
export function renderScreen(headers: Record<string, string | undefined>, shell: Omit<LayoutProps, 'children'>, content: JSX.Element): JSX.Element {
  return isHtmx(headers) ? content : <Layout {...shell}>{content}</Layout>;
}

/** The sign-in page and other screens outside the shell. */
export function BareLayout({ title, children }: { title: string; children?: JSX.Element }): JSX.Element {
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
        <PageHead title={title} />
        <body>
          <main class="narrow">
            <h1 safe>{title}</h1>
            {children}
          </main>
        </body>
      </html>
    </>
  );
}

/** Escapes a value for use in text (for the rare place a string is built outside JSX). */
export const escape = (value: string) => Html.escapeHtml(value);
