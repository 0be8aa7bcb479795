// Which engine tests CI runs. The whole tier takes hours on this two-core machine; CI (inside its 90-minute
// budget, with the unit suite before it) runs a representative part of each file, and
// `npm run test:engine -- --all` runs every test (STACKWRIGHT_ENGINE_ALL=1) and then boots every preset.
// docs/testing.md lists which test runs where.
export const ENGINE_ALL = process.env.STACKWRIGHT_ENGINE_ALL === '1';

/** node:test options: run this test in CI when `inCi`, otherwise only in the long run (--all). */
export function ciOrAll(inCi: boolean): { skip?: string } {
  return inCi || ENGINE_ALL ? {} : { skip: 'in the long run only: npm run test:engine -- --all' };
}
