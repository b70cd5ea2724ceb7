// The source files under mutation testing and the test files that guard each (docs/testing.md). `unbooted` test files
// boot no service (no database, or a migrated one of their own) and run first; `booted` ones use the shared test
// service. Both run on PGlite, or on PostgreSQL with DATABASE_URL (faster to start on this machine).
export const targets = {
  'audit': {
    file: 'src/platform/audit/audit.ts',
    unbooted: ['tests/platform/audit-chain.test.ts', 'tests/platform/audit-log-db.test.ts', 'tests/platform/audit-log-concurrency.test.ts'],
  },
  'audit-verify': {
    file: 'src/platform/audit/audit-verify.ts',
    unbooted: ['tests/platform/audit-chain.test.ts', 'tests/platform/audit-log-db.test.ts'],
  },
  'history-seals': {
    file: 'src/platform/audit/history-seals.ts',
    unbooted: ['tests/platform/history-seals.test.ts'],
  },
  'permissions': {
    file: 'src/platform/permissions/permissions.ts',
    unbooted: ['tests/platform/permissions.test.ts'],
    booted: ['tests/platform/ownership.test.ts'],
  },
  'ownership': {
    file: 'src/platform/permissions/ownership.ts',
    unbooted: ['tests/platform/permissions.test.ts'],
    booted: ['tests/platform/ownership.test.ts'],
  },
  'csv-engine': {
    file: 'src/platform/csv/engine.ts',
    booted: ['tests/imports/rows.test.ts', 'tests/imports/run-states.test.ts', 'tests/imports/rules.test.ts', 'tests/imports/files.test.ts', 'tests/imports/access.test.ts'],
  },
  'csv-parse': {
    file: 'src/platform/csv/parse.ts',
    unbooted: ['tests/imports/parse.test.ts'],
    booted: ['tests/imports/files.test.ts'],
  },
};
