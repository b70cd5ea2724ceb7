import { eq } from 'drizzle-orm';
import { assessmentRequests, type StoredAnswer } from '../db/schema';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { createTemplate, saveResponse, sendRequest } from '../src/modules/assessments/service';
import type { Section } from '../src/modules/assessments/schema';
import { bootBenchService, ms, summarise, timeIt } from './lib';

const QUESTIONS = 200;
const SAMPLES = 30;

/** 200 questions over 10 sections, every kind but files, a tenth of them conditional. */
function sections(): Section[] {
  const kinds = ['yesno', 'single', 'multiple', 'text', 'number', 'date'] as const;
  return Array.from({ length: 10 }, (_, s) => ({
    title: `Section ${s + 1}`,
    questions: Array.from({ length: QUESTIONS / 10 }, (_, i) => {
      const n = s * 20 + i;
      const kind = kinds[n % kinds.length];
      const choices = kind === 'yesno' ? [{ value: 'yes', label: 'Yes', score: 100 }, { value: 'no', label: 'No', score: 0 }]
        : kind === 'single' || kind === 'multiple' ? [1, 2, 3, 4].map((c) => ({ value: `c${c}`, label: `Choice ${c}`, score: c * 25 })) : undefined;
      return {
        key: `q${n}`, text: `Question ${n}`, kind, required: true, weight: choices ? 1 + (n % 3) : 0, ...(choices ? { choices } : {}),
        ...(i === 7 ? { showWhen: { question: `q${s * 20 + ((6 - ((s * 20) % 6)) % 6)}`, equals: 'yes' } } : {}),
      };
    }),
  }));
}

function answers(template: Section[]): Record<string, StoredAnswer> {
  const given: Record<string, StoredAnswer> = {};
  for (const q of template.flatMap((s) => s.questions)) {
    given[q.key] = q.kind === 'yesno' ? 'yes' : q.kind === 'single' ? 'c3' : q.kind === 'multiple' ? ['c1', 'c2'] : q.kind === 'text' ? 'A sentence or two of an answer.'
      : q.kind === 'number' ? '42' : '2026-06-30';
  }
  return given;
}

/**
 * A 200-question questionnaire answered through the service as the public page does: a draft saved (every answer
 * checked, stored, History and Audit Log) and a submission (required answers and the score too). Floor: the same
 * answers written by one UPDATE alone.
 */
export async function benchAssessments(): Promise<Record<string, string>> {
  const ctx = await bootBenchService('assessments');
  const figures: Record<string, string> = {};
  try {
    const admin = userActor((await loadUserRightsByEmail(ctx.db, ctx.config.ADMIN_EMAIL))!, 'api');
    const template = sections();
    const given = answers(template);
    const { id: templateId } = await ctx.db.transaction((tx) => createTemplate(tx, admin, { title: 'Benchmark', sections: template }));
    const secrets: { id: string; secret: string }[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const sent = await ctx.db.transaction((tx) => sendRequest(tx, admin, { templateId, respondentEmail: 'bench@vendor.example', dueOn: '2099-12-31' }, 'http://localhost'));
      secrets.push({ id: sent.id, secret: sent.url.split('/').pop()! });
    }
    const drafts: number[] = [];
    const submits: number[] = [];
    const floors: number[] = [];
    for (const { id, secret } of secrets) {
      drafts.push((await timeIt(() => ctx.db.transaction((tx) => saveResponse(tx, secret, given, 0, false)))).ms);
      submits.push((await timeIt(() => ctx.db.transaction((tx) => saveResponse(tx, secret, given, 1, true)))).ms);
      floors.push((await timeIt(() => ctx.db.update(assessmentRequests).set({ answers: given }).where(eq(assessmentRequests.id, id)))).ms);
    }
    const [d, s, f] = [summarise(drafts), summarise(submits), summarise(floors)];
    figures[`${QUESTIONS}-question draft saved (p50 / p99)`] = `${ms(d.p50)} / ${ms(d.p99)} (target < 50 ms)`;
    figures[`${QUESTIONS}-question submission (p50 / p99)`] = `${ms(s.p50)} / ${ms(s.p99)} (target < 200 ms)`;
    figures['floor: the answers written by one UPDATE (p50)'] = ms(f.p50);
  } finally {
    await ctx.dispose();
  }
  return figures;
}
