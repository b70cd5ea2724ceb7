import { Elysia, t } from 'elysia';
import type { StoredAnswer } from '../../../db/schema';
import { AppError } from '../../platform/core/errors';
import { log } from '../../platform/core/log';
import { runWrite, type AppContext } from '../../platform/http/context';
import { formList, formText } from '../../platform/http/form-input';
import { screenViewerOf } from '../../platform/http/screen-auth';
import { sniffContentType, storeHashed } from '../../platform/storage/storage';
import { fieldErrors } from '../../../views/components/form';
import { RespondentPage } from './public-views';
import { questionsOf } from './scoring';
import { AlreadySubmitted, openLink, saveResponse, type FileToRecord, type OpenLink } from './service';

/** A file answer's size limit, and the request's (several file answers in one form). */
export const FILE_MB = 10;
export const ASSESS_FORM_PATH = /^\/assess\/[^/]+$/;
export const assessUploadLimit = {
  path: ASSESS_FORM_PATH, bytes: 3 * FILE_MB * 1024 * 1024 + 1024 * 1024,
  message: `This form is larger than the ${3 * FILE_MB} MB a questionnaire takes at once. Attach large files one save at a time (each at most ${FILE_MB} MB).`,
};
const EXTENSIONS = /\.(pdf|png|jpe?g|gif|webp|txt|csv|md|docx?|xlsx?|pptx?|odt|ods|odp|zip)$/i;
const TYPES = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/zip', 'application/x-ole-storage', 'text/plain; charset=utf-8']);
const CSRF_COOKIE = 'assess_csrf';
const Params = t.Object({ secret: t.String({ maxLength: 200 }) });

/** The public questionnaire: /assess/<token>, answered without an account. */
export const assessPages = (ctx: AppContext) => {
  const render = async (request: Request, secret: string, link: OpenLink, csrf: string, extra: { answers?: Record<string, StoredAnswer>; errors?: Record<string, string>; message?: { kind: 'error' | 'success' | 'info'; text: string } } = {}) => {
    const signed = await screenViewerOf(ctx, request).catch(() => null);
    return <RespondentPage secret={secret} title={link.request.title} thirdPartyName={link.thirdPartyName} respondentName={link.request.respondentName} dueOn={link.request.dueOn}
      sections={link.sections} answers={extra.answers ?? link.request.answers} fileNames={link.fileNames} revision={link.request.revision}
      readOnly={link.request.status === 'submitted'} returned={link.request.status === 'returned'} csrf={csrf} sessionCsrf={signed?.csrfToken}
      errors={extra.errors} message={extra.message} maxFileMb={FILE_MB} />;
  };
  const headers = (set: { headers: Record<string, string | number> }) => {
    set.headers['content-type'] = 'text/html; charset=utf-8';
    set.headers['cache-control'] = 'no-store';
    set.headers['referrer-policy'] = 'no-referrer';
  };

  return new Elysia({ name: 'assessments:public' })
    .get('/assess/:secret', async ({ params, set, cookie, request, query }) => {
      const link = await openLink(ctx.db, params.secret);
      headers(set);
      // Double-submit CSRF token: a cookie of this link's path that only this site can read, echoed by the form.
      let csrf = cookie[CSRF_COOKIE]?.value as string | undefined;
      if (typeof csrf !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(csrf)) {
        csrf = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
        cookie[CSRF_COOKIE].set({ value: csrf, httpOnly: true, sameSite: 'strict', secure: ctx.config.COOKIE_SECURE, path: `/assess/${params.secret}` });
      }
      const message = query.saved === '1' ? { kind: 'success' as const, text: 'Your draft was saved. Come back to this link to go on.' }
        : query.submitted === '1' ? { kind: 'success' as const, text: 'Thank you: your answers were submitted.' } : undefined;
      return render(request, params.secret, link, csrf, { message });
    }, { params: Params, query: t.Object({ saved: t.Optional(t.String()), submitted: t.Optional(t.String()) }), detail: { hide: true } })
    .post('/assess/:secret', async ({ params, set, cookie, request, body, redirect }) => {
      const link = await openLink(ctx.db, params.secret);
      const csrf = cookie[CSRF_COOKIE]?.value;
      if (typeof csrf !== 'string' || !csrf || formText(body, '_assess_csrf') !== csrf) {
        throw new AppError('FORBIDDEN', 'This form has expired or did not come from this site. Open the link again and repeat your changes.', [], 'assessment form CSRF token missing or wrong');
      }
      headers(set);
      const submit = formText(body, 'action') === 'submit';
      const revision = Number(formText(body, 'revision'));
      const given: Record<string, StoredAnswer> = {};
      const errors: Record<string, string> = {};
      const files: { key: string; file: File }[] = [];
      for (const q of questionsOf(link.sections)) {
        if (q.kind === 'multiple') given[q.key] = formList(body, `a-${q.key}`);
        else if (q.kind === 'file') {
          const value = (body as Record<string, unknown>)[`f-${q.key}`];
          const file = Array.isArray(value) ? value.find((v) => v instanceof Blob) : value;
          if (file instanceof File && file.size > 0) {
            if (file.size > FILE_MB * 1024 * 1024) errors[q.key] = `${file.name} is larger than the ${FILE_MB} MB a file may be`;
            else if (!EXTENSIONS.test(file.name)) errors[q.key] = `${file.name} is not a file type taken here: send a PDF, image, text or office document`;
            else files.push({ key: q.key, file });
          } else if (link.request.answers[q.key]) given[q.key] = link.request.answers[q.key];
        } else given[q.key] = formText(body, `a-${q.key}`);
      }
      const keep = { ...link.request.answers, ...given };
      if (Object.keys(errors).length) {
        set.status = 400;
        return render(request, params.secret, link, csrf, { answers: keep, errors, message: { kind: 'error', text: 'Nothing was saved: please fix the answers marked below.' } });
      }
      // Files are stored first (streamed and hashed); a refused write then removes them, so nothing is half-written.
      const stored: FileToRecord[] = [];
      let error: AppError;
      try {
        for (const { key, file } of files) {
          const storageKey = crypto.randomUUID();
          const digest = await storeHashed(ctx.storage, storageKey, file.stream(), FILE_MB * 1024 * 1024, `${file.name} is larger than the ${FILE_MB} MB a file may be`);
          stored.push({ key, name: file.name.slice(0, 200), storageKey, size: digest.size, sha256: digest.sha256, contentType: sniffContentType(digest.head) });
          if (!TYPES.has(stored.at(-1)!.contentType)) throw new AppError('INVALID', 'refused file', [{ field: key, message: `${file.name} is not a PDF, image, text or office document` }]);
        }
        await runWrite(ctx, (tx) => saveResponse(tx, params.secret, given, revision, submit, stored));
        return redirect(`/assess/${params.secret}?${submit ? 'submitted' : 'saved'}=1`, 303);
      } catch (caught) {
        for (const s of stored) await ctx.storage.remove(s.storageKey).catch((e) => log.error('stored assessment file left after a refused save', { storageKey: s.storageKey, error: String(e) }));
        if (!(caught instanceof AppError) || caught.deniedReason || !['INVALID', 'CONFLICT', 'TOO_LARGE'].includes(caught.code)) throw caught;
        error = caught;
      }
      set.status = error.status;
      const fresh = await openLink(ctx.db, params.secret);
      if (error instanceof AlreadySubmitted) return render(request, params.secret, fresh, csrf, { message: { kind: 'error', text: error.message } });
      if (error.code === 'CONFLICT') return render(request, params.secret, fresh, csrf, { message: { kind: 'error', text: error.message } });
      return render(request, params.secret, link, csrf, {
        answers: keep, errors: fieldErrors(error.problems),
        message: { kind: 'error', text: error.problems.length ? `Nothing was saved: please fix the ${error.problems.length === 1 ? 'answer' : `${error.problems.length} answers`} marked below.` : error.message },
      });
    }, { params: Params, detail: { hide: true } });
};
