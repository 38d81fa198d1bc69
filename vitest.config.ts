import {readdirSync, readFileSync} from 'node:fs'
import {defineConfig} from 'vitest/config'

/**
 * The unit tests in two projects (both run by `npm test`):
 * - fast: everything in-process against src/ (vitest transforms it; no build). The edit-test loop: `npm run test:unit`.
 * - slow: the files that spawn the built CLI (they name bin/run.js, or test/unit/hardening/cli.ts, and run dist/: a
 *   setup builds it first when src/ is newer), the fuzzers (`*fuzz*`) and files whose header says `@slow` (long
 *   equivalence runs over generated logs). `npm run test:slow`.
 * Which is which is read from the files, so a new test that spawns the CLI cannot land in the fast loop by mistake.
 */
const UNIT = 'test/unit'
const files = (readdirSync(UNIT, {recursive: true}) as string[]).filter(f => f.endsWith('.test.ts')).map(f => `${UNIT}/${f}`)
const SPAWNS_CLI = /['"]run\.js['"]|bin\/run\.js|from '\.\/cli\.js'|hardening\/cli\.js/
const MARKED_SLOW = /^ \* @slow\b/m
const slow = files.filter(f => /fuzz/.test(f) || SPAWNS_CLI.test(readFileSync(f, 'utf8')) || MARKED_SLOW.test(readFileSync(f, 'utf8')))

const shared = {
  testTimeout: 60_000,
  // oclif writes with console.log; let @oclif/test capture it instead of vitest
  disableConsoleIntercept: true,
}

export default defineConfig({
  test: {
    projects: [
      {test: {...shared, name: 'fast', include: [`${UNIT}/**/*.test.ts`], exclude: slow}},
      {test: {...shared, name: 'slow', include: slow, globalSetup: ['test/setup/build-if-stale.ts']}},
    ],
  },
})
