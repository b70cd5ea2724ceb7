/// <reference types="@kitajs/html/htmx.d.ts" />
import Html from '@kitajs/html';
import { shownBrand } from './brand';

/** True for an htmx request that wants a fragment (a boosted navigation wants the whole page). */
export function isHtmx(headers: Record<string, string | undefined> | Headers): boolean {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? undefined;
  return get('hx-request') === 'true' && get('hx-boosted') !== 'true';
}

/** One group of the side navigation, with the entries the viewer may open. */
export interface NavGroupView {
  group: string;
  entries: { key: string; label: string; href: string }[];
}

export interface LayoutProps {
  title: string;
  /** The side navigation, already limited to what the viewer may open. */
  nav: readonly NavGroupView[];
  /** The signed-in person's e-mail, shown in the header. */
  email: string | null;
  csrfToken: string;
  /** Key of the current section: 'risks' or a Settings key such as 'api-tokens'. */
  active?: string;
  /** The page's main action (one primary button) and secondary actions, on the right of the title. */
  actions?: JSX.Element;
  children?: JSX.Element;
}

const HTMX_CONFIG = JSON.stringify({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false });

/** The document head shared by the shell and the bare pages. */
function PageHead({ title, htmx = false }: { title: string; htmx?: boolean }): JSX.Element {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title safe>{`${title} · ${shownBrand().name}`}</title>
      <link rel="stylesheet" href="/static/app.css" />
      {shownBrand().accentVersion && <link rel="stylesheet" href={`/branding.css?v=${shownBrand().accentVersion}`} />}
      <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
      {/* Under the Content-Security-Policy htmx may not add its own style element or evaluate script from attributes. */}
      {htmx && <meta name="htmx-config" content={HTMX_CONFIG} />}
      {htmx && <script src="/static/htmx.min.js" defer></script>}
      <script src="/static/app.js" defer></script>
    </head>
  );
}

/** The organisation's logo (when one is set) and name, from Settings › Branding. */
export function BrandMark({ link = true }: { link?: boolean }): JSX.Element {
  const brand = shownBrand();
  const content = <>{brand.logoVersion && <img class="brand-logo" src={`/branding/logo?v=${brand.logoVersion}`} alt="" />}<span safe>{brand.name}</span></>;
  return link ? <a class="brand" href="/">{content}</a> : <p class="brand">{content}</p>;
}

/** The app shell: every signed-in page renders inside it; htmx fragments render the page's content component alone. */
export function Layout({ title, nav: groups, email, csrfToken, active, actions, children }: LayoutProps): JSX.Element {
  const current = (key: string) => (key === active ? 'page' : undefined);
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
        <PageHead title={title} htmx />
        <body hx-headers={JSON.stringify({ 'x-csrf-token': csrfToken })}>
          <a class="skip-link" href="#main">Skip to the content</a>
          <header class="topbar">
            {/* Opens the side navigation on narrow screens without script (the Content-Security-Policy allows none inline). */}
            <input type="checkbox" id="nav-toggle" class="nav-toggle-box" aria-label="Show the menu" />
            <label for="nav-toggle" class="nav-toggle">Menu</label>
            <BrandMark />
            <form method="get" action="/search" role="search" class="topsearch" aria-label="Search every register">
              <input type="search" name="q" placeholder="Search" aria-label="Search records" maxlength="200" />
            </form>
            <div class="whoami">
              <a class="email" href="/settings/password" title="Change your password" safe>{email ?? ''}</a>
              <a href="/settings/two-factor" title="Two-factor sign-in">Two-factor</a>
              <a href="/settings/my-notifications" title="Your digests and rule mails">Notifications</a>
              <form method="post" action="/sign-out" class="inline">
                <input type="hidden" name="_csrf" value={csrfToken} />
                <button type="submit" class="link">Sign out</button>
              </form>
            </div>
          </header>
          <div class="frame">
            <nav class="sidenav" aria-label="Main">
              {groups.map((g) => (
                <section>
                  <h2 safe>{g.group}</h2>
                  <ul>
                    {g.entries.map((e) => (
                      <li>
                        <a href={e.href} aria-current={current(e.key)} safe>{e.label}</a>
                      </li>
                    ))}
                  </ul>
                </section>
              ))}
            </nav>
            <main id="main">
              <div class="page-head">
                <h1 safe>{title}</h1>
                {actions && <div class="actions">{actions}</div>}
              </div>
              {children}
            </main>
          </div>
        </body>
      </html>
    </>
  );
}

/** The sign-in page and other screens outside the shell; `wide` for a document meant to be printed (the Article 30 register). */
export function BareLayout({ title, children, wide }: { title: string; children?: JSX.Element; wide?: boolean }): JSX.Element {
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
        <PageHead title={title} />
        <body>
          <main class={wide ? 'document' : 'narrow'}>
            <BrandMark link={false} />
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
