import type { StoredAnswer, StoredAssessmentQuestion, StoredSection } from '../../../db/schema';
import { questionsOf } from './scoring';
import { ErrorSummary } from '../../../views/components/form';

/**
 * The respondent's pages at /assess/<token>: no account, no app shell. A plain form that works without JavaScript
 * (multipart, so file answers travel with the others), labelled fields, an error summary linking to each problem,
 * and what was typed kept when a save is refused.
 */

export interface RespondentPageProps {
  secret: string;
  title: string;
  thirdPartyName: string | null;
  respondentName: string;
  dueOn: string;
  sections: StoredSection[];
  answers: Record<string, StoredAnswer>;
  fileNames: ReadonlyMap<string, string>;
  revision: number;
  readOnly: boolean;
  returned: boolean;
  csrf: string;
  sessionCsrf?: string;
  errors?: Record<string, string>;
  message?: { kind: 'error' | 'success' | 'info'; text: string };
  maxFileMb: number;
}

const valueOf = (answer: StoredAnswer | undefined): string => (answer === null || answer === undefined || Array.isArray(answer) ? '' : String(answer));

function Question({ q, number, answers, fileNames, error, byKey }: {
  q: StoredAssessmentQuestion; number: string; answers: Record<string, StoredAnswer>; fileNames: ReadonlyMap<string, string>; error?: string;
  byKey: ReadonlyMap<string, { q: StoredAssessmentQuestion; number: string }>;
}): JSX.Element {
  const id = `q-${q.key}`;
  const name = `a-${q.key}`;
  const answer = answers[q.key];
  const condition = q.showWhen ? byKey.get(q.showWhen.question) : undefined;
  const conditionLabel = condition?.q.choices?.find((c) => c.value === q.showWhen!.equals)?.label ?? q.showWhen?.equals;
  const hints = [
    condition ? `Answer only if your answer to question ${condition.number} is "${conditionLabel}".` : '',
    q.hint ?? '',
    q.kind === 'multiple' ? 'Choose all that apply.' : '',
    q.kind === 'date' ? 'For example 2026-03-31.' : '',
  ].filter(Boolean).join(' ');
  const describedBy = [hints ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const label = `${number}. ${q.text}${q.required ? '' : ' (optional)'}`;
  const hint = hints ? <span class="hint" id={`${id}-hint`} safe>{hints}</span> : '';
  const errorText = error ? <span class="error" id={`${id}-error`} role="alert" safe>{error}</span> : '';
  if (q.choices) {
    const chosen = Array.isArray(answer) ? answer : answer === undefined || answer === null ? [] : [String(answer)];
    const type = q.kind === 'multiple' ? 'checkbox' : 'radio';
    return (
      <fieldset class={error ? 'field invalid' : 'field'} id={id} aria-describedby={describedBy}>
        <legend safe>{label}</legend>
        {hint}{errorText}
        <div class="checks">
          {q.choices.map((c, i) => (
            <label><input type={type} name={name} value={c.value} id={i === 0 ? `${id}-first` : undefined} checked={chosen.includes(c.value)} /> <span safe>{c.label}</span></label>
          ))}
        </div>
      </fieldset>
    );
  }
  const common = { id: `${id}-input`, name, 'aria-describedby': describedBy, 'aria-invalid': error ? 'true' : undefined };
  return (
    <div class={error ? 'field invalid' : 'field'} id={id}>
      <label for={`${id}-input`} safe>{label}</label>
      {hint}{errorText}
      {q.kind === 'text' ? <textarea {...common} rows="4" maxlength="20000" safe>{valueOf(answer)}</textarea>
        : q.kind === 'number' ? <input {...common} type="text" inputmode="decimal" value={valueOf(answer)} />
        : q.kind === 'date' ? <input {...common} type="date" value={valueOf(answer)} />
        : (
          <>
            {answer ? <p safe>{`Attached: ${fileNames.get(String(answer)) ?? 'a file'}. Choose another file to replace it.`}</p> : ''}
            <input {...common} name={`f-${q.key}`} type="file" />
          </>
        )}
    </div>
  );
}

function ReadOnlyAnswers({ sections, answers, fileNames }: Pick<RespondentPageProps, 'sections' | 'answers' | 'fileNames'>): JSX.Element {
  const shown = new Set(Object.keys(answers));
  return (
    <>
      {sections.map((s) => (
        <section>
          <h2 safe>{s.title}</h2>
          <dl>
            {s.questions.filter((q) => shown.has(q.key) || !q.showWhen).map((q) => {
              const a = answers[q.key];
              const text = a === undefined || a === null ? '(no answer)'
                : q.kind === 'file' ? fileNames.get(String(a)) ?? 'a file'
                : q.choices ? (Array.isArray(a) ? a : [String(a)]).map((v) => q.choices!.find((c) => c.value === v)?.label ?? v).join(', ')
                : String(a);
              return <><dt safe>{q.text}</dt><dd class="pre-wrap" safe>{text}</dd></>;
            })}
          </dl>
        </section>
      ))}
    </>
  );
}

export function RespondentPage(p: RespondentPageProps): JSX.Element {
  const numbered = new Map<string, { q: StoredAssessmentQuestion; number: string }>();
  p.sections.forEach((s, si) => s.questions.forEach((q, qi) => numbered.set(q.key, { q, number: `${si + 1}.${qi + 1}` })));
  const errors = p.errors ?? {};
  const problemKeys = questionsOf(p.sections).map((q) => q.key).filter((k) => errors[k]);
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="no-referrer" />
          <title safe>{`${p.title} · Questionnaire`}</title>
          <link rel="stylesheet" href="/static/app.css" />
          <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
        </head>
        <body>
          <header class="topbar"><span class="brand">Questionnaire</span></header>
          <main class="narrow" id="main">
            <h1 safe>{p.title}</h1>
            <p safe>{[
              p.thirdPartyName ? `For ${p.thirdPartyName}.` : '',
              p.respondentName ? `Sent to ${p.respondentName}.` : '',
              p.readOnly ? '' : `Please answer by ${p.dueOn}.`,
            ].filter(Boolean).join(' ')}</p>
            {p.message ? <div class={`flash flash-${p.message.kind}`} role={p.message.kind === 'error' ? 'alert' : 'status'} safe>{p.message.text}</div> : ''}
            {p.readOnly ? (
              <>
                <p>These answers were submitted and can no longer be changed. They are being reviewed.</p>
                <ReadOnlyAnswers sections={p.sections} answers={p.answers} fileNames={p.fileNames} />
              </>
            ) : (
              <>
                {p.returned ? <p>Your answers were returned for changes: change them below and submit them again.</p> : ''}
                <ErrorSummary problems={problemKeys.map((k) => ({ message: `Question ${numbered.get(k)!.number}: ${errors[k]}`, href: `#q-${k}` }))} />
                <p safe>{`Questions marked (optional) may be left blank. Save a draft at any time and come back to this link later; submit once every required answer is given. Files: PDF, image, text or office documents of at most ${p.maxFileMb} MB.`}</p>
                <form class="form" method="post" action={`/assess/${p.secret}`} enctype="multipart/form-data">
                  <input type="hidden" name="_assess_csrf" value={p.csrf} />
                  {p.sessionCsrf ? <input type="hidden" name="_csrf" value={p.sessionCsrf} /> : ''}
                  <input type="hidden" name="revision" value={String(p.revision)} />
                  {p.sections.map((s) => (
                    <section>
                      <h2 safe>{s.title}</h2>
                      {s.description ? <p safe>{s.description}</p> : ''}
                      {s.questions.map((q) => <Question q={q} number={numbered.get(q.key)!.number} answers={p.answers} fileNames={p.fileNames} error={errors[q.key]} byKey={numbered} />)}
                    </section>
                  ))}
                  <p class="actions">
                    <button type="submit" name="action" value="submit">Submit answers</button>{' '}
                    <button type="submit" name="action" value="save" class="secondary">Save draft</button>
                  </p>
                </form>
              </>
            )}
          </main>
        </body>
      </html>
    </>
  );
}
