import type { RecordView } from '../../platform/records/records';
import { CsrfField, Field, Select } from '../../../views/components/form';
import { valueOptions } from '../../platform/core/value-labels';
import type { controls } from '../../../db/schema';
import { TEST_RESULTS, type ControlTesting } from './schema';

export type ControlView = RecordView<typeof controls>;

/** The testing schedule, with a form to record a test for those who may update the control (the results: linked-sections.ts). */
export function TestingSection({ view, testing, canRecord, csrfToken }: { view: ControlView; testing: ControlTesting; canRecord: boolean; csrfToken: string }): JSX.Element {
  return (
    <section>
      <h2>Testing</h2>
      <p safe>{testing.frequencyMonths
        ? `Tested every ${testing.frequencyMonths} months. Last test: ${testing.lastTestedOn ?? 'never'}. Next test due: ${testing.nextTestDue}.`
        : 'No testing schedule.'}</p>
      {canRecord && (
        <form method="post" action={`/controls/${view.id}/tests`} class="card form">
          <CsrfField token={csrfToken} />
          <Field label="Tested on" name="testedOn" type="date" required />
          <Field label="Result" name="result" required>
            <Select name="result" options={valueOptions(TEST_RESULTS)} />
          </Field>
          <Field label="Notes" name="notes" type="textarea" />
          <button type="submit">Record test</button>
        </form>
      )}
    </section>
  );
}
