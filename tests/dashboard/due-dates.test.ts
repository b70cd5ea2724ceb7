import { beforeAll, describe, expect, test } from 'bun:test';
import { controlKind, recordControlTest } from '../../src/modules/controls/service';
import { recordRiskReview } from '../../src/modules/risks/treatments-service';
import { deleteRisk, updateRisk } from '../../src/modules/risks/service';
import { dueSoon } from '../../src/platform/dashboard/due-soon';
import { todayIso } from '../../src/platform/core/dates';
import { createRecord, deleteRecord, updateRecord } from '../../src/platform/records/records';
import type { Actor } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeRisk, makeUser, unique } from '../helpers/factories';

// The Dashboard reads the next test and review dates stored with each control and risk (migration 0043): every write
// that moves them (a test or review recorded, a frequency changed) moves the stored date, whichever way it is written.
let env: TestEnv;
let admin: Actor;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
});

const kindOf = async (viewer: Actor, key: string) => {
  const row = (await dueSoon(env.ctx.db, viewer)).find((r) => r.kind.key === key)!;
  return { overdue: row.overdue, soon: row.soon, items: row.items.map(({ title, due }) => ({ title, due })) };
};

describe('a control\'s next test date', () => {
  test('never tested: due today; tested: the test plus the frequency; a later test and a new frequency move it', async () => {
    const owner = await makeUser(env, { 'controls:read': 'own' });
    const viewer = await owner.actor();
    const name = unique('Scheduled control');
    const { id } = await env.ctx.db.transaction((tx) => createRecord(tx, controlKind, admin, { name, ownerId: owner.id, testFrequencyMonths: 6 }));
    expect(await kindOf(viewer, 'controlTestsDue')).toEqual({ overdue: 0, soon: 1, items: [{ title: name, due: todayIso() }] });

    await env.ctx.db.transaction((tx) => recordControlTest(tx, admin, id, { testedOn: '2025-05-10', result: 'pass' }));
    expect(await kindOf(viewer, 'controlTestsDue')).toEqual({ overdue: 1, soon: 0, items: [{ title: name, due: '2025-11-10' }] });

    // An older test recorded later changes nothing: the last test counts.
    await env.ctx.db.transaction((tx) => recordControlTest(tx, admin, id, { testedOn: '2025-01-10', result: 'fail' }));
    expect((await kindOf(viewer, 'controlTestsDue')).items).toEqual([{ title: name, due: '2025-11-10' }]);

    await env.ctx.db.transaction((tx) => updateRecord(tx, controlKind, admin, id, { testFrequencyMonths: 12 }));
    expect((await kindOf(viewer, 'controlTestsDue')).items).toEqual([{ title: name, due: '2026-05-10' }]);

    await env.ctx.db.transaction((tx) => recordControlTest(tx, admin, id, { testedOn: todayIso(), result: 'pass' }));
    expect(await kindOf(viewer, 'controlTestsDue')).toEqual({ overdue: 0, soon: 0, items: [] });

    // Unscheduled or retired: never due. Deleting the control takes its tests with it.
    await env.ctx.db.transaction((tx) => updateRecord(tx, controlKind, admin, id, { testFrequencyMonths: null, status: 'retired' }));
    expect(await kindOf(viewer, 'controlTestsDue')).toEqual({ overdue: 0, soon: 0, items: [] });
    await env.ctx.db.transaction((tx) => deleteRecord(tx, controlKind, admin, id));
  });
});

describe('a risk\'s next review date', () => {
  test('the creation day plus the frequency, then the last review plus the frequency; a new frequency moves it', async () => {
    const owner = await makeUser(env, { 'risks:read': 'own' });
    const viewer = await owner.actor();
    const title = unique('Reviewed risk');
    const id = await makeRisk(env, admin, { title, ownerId: owner.id, reviewFrequencyMonths: 12 });
    expect(await kindOf(viewer, 'riskReviewsDue')).toEqual({ overdue: 0, soon: 0, items: [] });

    await env.ctx.db.transaction((tx) => recordRiskReview(tx, admin, id, { reviewedOn: '2025-01-15', outcome: 'no_change' }));
    // The last review is the latest by date, not the first recorded: the creation day (today) is not a review.
    expect(await kindOf(viewer, 'riskReviewsDue')).toEqual({ overdue: 1, soon: 0, items: [{ title, due: '2026-01-15' }] });

    await env.ctx.db.transaction((tx) => updateRisk(tx, admin, id, { reviewFrequencyMonths: 24 }));
    expect(await kindOf(viewer, 'riskReviewsDue')).toEqual({ overdue: 0, soon: 0, items: [] });

    await env.ctx.db.transaction((tx) => updateRisk(tx, admin, id, { reviewFrequencyMonths: 6 }));
    expect((await kindOf(viewer, 'riskReviewsDue')).items).toEqual([{ title, due: '2025-07-15' }]);

    // Closed risks are not reviewed; a deleted one is gone with its reviews.
    await env.ctx.db.transaction((tx) => updateRisk(tx, admin, id, { status: 'closed' }));
    expect(await kindOf(viewer, 'riskReviewsDue')).toEqual({ overdue: 0, soon: 0, items: [] });
    await env.ctx.db.transaction((tx) => deleteRisk(tx, admin, id));
  });
});
