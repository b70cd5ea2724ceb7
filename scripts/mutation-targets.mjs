// The source files under mutation testing and the test files that guard each (docs/testing.md). `pure` files need no
// database (they run without booting the service); `db` files boot one (PGlite, or PostgreSQL with DATABASE_URL).
export const targets = {
  'audit': {
    file: 'src/platform/audit.ts',
    pure: ['tests/platform/audit-chain.test.ts'],
    db: ['tests/platform/audit-log-db.test.ts'],
  },
  'audit-verify': {
    file: 'src/platform/audit-verify.ts',
    pure: ['tests/platform/audit-chain.test.ts'],
    db: ['tests/platform/audit-log-db.test.ts'],
  },
  'history-seals': {
    file: 'src/platform/history-seals.ts',
    db: ['tests/platform/history-seals.test.ts'],
  },
  'permissions': {
    file: 'src/platform/permissions.ts',
    db: ['tests/platform/restricted-names.test.ts', 'tests/projects/api.test.ts', 'tests/imports/access.test.ts'],
  },
  'ownership': {
    file: 'src/platform/ownership.ts',
    db: ['tests/platform/restricted-names.test.ts', 'tests/projects/api.test.ts', 'tests/imports/access.test.ts'],
  },
  'csv-engine': {
    file: 'src/platform/csv/engine.ts',
    db: ['tests/imports/rules.test.ts', 'tests/imports/files.test.ts', 'tests/imports/access.test.ts', 'tests/imports/more-types.test.ts', 'tests/imports/exceptions.test.ts'],
  },
  'csv-parse': {
    file: 'src/platform/csv/parse.ts',
    db: ['tests/imports/files.test.ts', 'tests/imports/rules.test.ts'],
  },
};
