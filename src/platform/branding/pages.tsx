import { Elysia } from 'elysia';
import { CsrfField, Field, fieldErrors } from '../../../views/components/form';
import { Flash, FormError } from '../../../views/components/flash';
import { attempt, formText } from '../http/form-input';
import { renderScreen } from '../http/screen';
import { runWrite, type AppContext } from '../http/context';
import { screenAuth } from '../http/screen-auth';
import { forbidden } from '../core/errors';
import { levelOf, type Actor } from '../permissions/permissions';
import { brandingOf, LOGO_LIMIT, MINIMUM_CONTRAST, refreshShownBrand, saveBranding, type Branding, type BrandingInput } from './branding';

/** What the logo may do where it is opened directly: nothing but draw itself (no script, no loads, no framing). */
export const LOGO_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox";

function BrandingPage(p: { csrfToken: string; values: BrandingInput; branding: Branding; canChange: boolean; done?: string; removed?: string[]; error?: string; errors: Record<string, string> }): JSX.Element {
  return (
    <>
      <Flash kind="success" message={p.done ? `Branding saved.${p.removed?.length ? ` Removed from the SVG logo: ${p.removed.join(', ')}.` : ''}` : undefined} />
      <form method="post" action="/settings/branding" enctype="multipart/form-data" class="card form" novalidate>
        <CsrfField token={p.csrfToken} />
        <FormError message={p.error} />
        <Field label="Organisation name" name="name" value={p.values.name} error={p.errors.name} required maxlength={100}
          hint="Shown in the header, on the sign-in page, on printed reports and in mails." />
        <Field label="Accent colour" name="accentColour" value={p.values.accentColour} error={p.errors.accentColour} maxlength={7}
          hint={`#rrggbb, the header's colour behind white text: it must reach a contrast of ${MINIMUM_CONTRAST}:1 (WCAG AA). Blank for the default.`} />
        <Field label="Logo" name="logo" error={p.errors.logo} hint={`PNG or SVG, at most ${LOGO_LIMIT / 1024} KB. Scripts, event handlers, styles, foreignObject and references outside the file are removed from an SVG.`}>
          <input type="file" id="f-logo" name="logo" accept="image/png,image/svg+xml" aria-describedby="f-logo-hint" />
        </Field>
        {p.branding.logo ? (
          <div class="field">
            <p><img src={`/branding/logo?v=${p.branding.logo.version}`} alt={`Current logo of ${p.branding.name}`} class="brand-logo-preview" /></p>
            <label class="inline"><input type="checkbox" name="removeLogo" value="on" /> Remove the logo</label>
          </div>
        ) : <p class="muted">No logo yet.</p>}
        {p.canChange ? <p class="actions"><button type="submit">Save branding</button></p> : <p class="muted">Changing the branding needs settings:update at level all.</p>}
      </form>
    </>
  );
}

/** Settings › Branding, the logo and the accent colour's style sheet, all served from this origin. */
export const brandingPages = (ctx: AppContext) => {
  const page = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, extra: { values?: BrandingInput; done?: string; removed?: string[]; error?: string; errors?: Record<string, string> } = {}) => {
    if (levelOf(viewer, 'settings:read') !== 'all') throw Object.assign(forbidden('settings:read at level all needed for branding'), { actor: viewer });
    const branding = await brandingOf(ctx.db);
    return renderScreen(headers, { title: 'Branding', viewer, csrfToken, active: 'branding' },
      <BrandingPage csrfToken={csrfToken} branding={branding} values={extra.values ?? { name: branding.name, accentColour: branding.accentColour }}
        canChange={levelOf(viewer, 'settings:update') === 'all'} done={extra.done} removed={extra.removed} error={extra.error} errors={extra.errors ?? {}} />);
  };
  return new Elysia({ name: 'platform:branding-pages' })
    // Every request refreshes the shown branding at most every few seconds: a change saved by another instance shows up.
    .onRequest(() => refreshShownBrand(ctx.db).catch(() => {}))
    .get('/branding.css', async ({ set }) => {
      const { accentColour } = await brandingOf(ctx.db);
      set.headers['content-type'] = 'text/css; charset=utf-8';
      set.headers['cache-control'] = 'public, max-age=300';
      // The colour was checked (#rrggbb, WCAG AA with white text) when it was saved.
      return /^#[0-9a-f]{6}$/.test(accentColour)
        ? `.topbar { background: ${accentColour}; color: #fff; }\n.topbar a, .topbar .link, .topbar label { color: #fff; }\nbutton:not(.link):not(.secondary):not(.danger), a.button { background: ${accentColour}; border-color: ${accentColour}; color: #fff; }\n.report-brand { border-bottom: 3px solid ${accentColour}; }\n`
        : '/* no accent colour set */\n';
    })
    .get('/branding/logo', async ({ set }) => {
      const { logo } = await brandingOf(ctx.db);
      if (!logo) { set.status = 404; return 'No logo'; }
      set.headers['content-type'] = logo.contentType;
      set.headers['content-security-policy'] = LOGO_CSP;
      set.headers['content-disposition'] = `inline; filename="logo.${logo.contentType === 'image/png' ? 'png' : 'svg'}"`;
      set.headers['cache-control'] = 'public, max-age=300';
      return new Response(ctx.storage.read(logo.key), { headers: set.headers as Record<string, string> });
    })
    .use(screenAuth(ctx))
    .get('/settings/branding', ({ viewer, csrfToken, headers, query }) => page(viewer, csrfToken, headers, { done: query.done }), { page: 'settings:read' })
    .post('/settings/branding', async ({ viewer, csrfToken, headers, body, set }) => {
      const values: BrandingInput = { name: formText(body, 'name').slice(0, 200), accentColour: formText(body, 'accentColour').trim().slice(0, 20) };
      const file = (body as Record<string, unknown> | null)?.logo;
      const upload = file instanceof Blob && file.size > 0 ? { bytes: new Uint8Array(await file.arrayBuffer()), filename: file instanceof File ? file.name : 'logo' } : undefined;
      const saved = await attempt(() => runWrite(ctx, (tx) => saveBranding(ctx, tx, viewer, values, { upload, remove: formText(body, 'removeLogo') === 'on' })));
      if (!saved.ok) {
        set.status = saved.error.status;
        return page(viewer, csrfToken, headers, { values, error: saved.error.problems.length ? 'Please correct the fields marked below.' : saved.error.message, errors: fieldErrors(saved.error.problems) });
      }
      return page(viewer, csrfToken, headers, { done: 'saved', removed: saved.value.removed });
    }, { page: 'settings:read' });
};
