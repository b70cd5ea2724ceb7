import type { RecordView } from '../../platform/records/records';
import { CsrfField, Field, Select } from '../../../views/components/form';
import { DataTable, Text } from '../../../views/components/table';
import { valueLabel, valueOptions } from '../../platform/core/value-labels';
import type { controls } from '../../../db/schema';
import { TEST_RESULTS, type ControlTesting } from './schema';

export type ControlView = RecordView<typeof controls>;

/** The testing schedule and test records, with a form to record a test for those who may update the control. */
export function TestingSection({ view, testing, canRecord, csrfToken }: { view: ControlView; testing: ControlTesting; canRecord: boolean; csrfToken: string }): JSX.Element {
  return (
    <section>
      <h2>Testing</h2>
      <p safe>{testing.frequencyMonths
        ? `Tested every ${testing.frequencyMonths} months. Last test: ${testing.lastTestedOn ?? 'never'}. Next test due: ${testing.nextTestDue}.`
        : 'No testing schedule.'}</p>
      <DataTable
        rows={testing.tests}
        empty="No tests recorded."
        columns={[
          { header: 'Date', cell: (t) => <Text value={t.testedOn} /> },
          { header: 'Result', cell: (t) => <Text value={valueLabel(t.result)} /> },
          { header: 'Notes', cell: (t) => <Text value={t.notes} /> },
        ]}
      />
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
