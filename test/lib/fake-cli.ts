/**
 * The CLI as a user runs it (bin/run.js's steps, on the built dist/) against the long-id fake cluster
 * (test/lib/long-ids.ts), for tests that need a real process: a pty from `script`, a pipe, an environment of
 * their own. `tsx test/lib/fake-cli.ts ARGS…`. The one difference from bin/run.js: the commands oclif loads open
 * the fake cluster (test/lib/commands.ts).
 */
import {fileURLToPath} from 'node:url'
import {loadOptionsOpening} from './commands.js'
import {longIdCluster} from './long-ids.js'

if (!process.stderr.isTTY) {
  process.env.OCLIF_COLUMNS ??= '400'
  process.env.NO_COLOR ??= '1'
}
const root = fileURLToPath(new URL('../..', import.meta.url))
const bin = new URL('../../bin/run.js', import.meta.url).href
const {deferOclifDependencies, launchOptions} = await import(new URL('../../dist/startup.js', import.meta.url).href)
deferOclifDependencies()
const [{Config}, {run}, {flush}, {handle}, {safeError}] = await Promise.all([
  import('@oclif/core/config'),
  import('@oclif/core/run'),
  import('@oclif/core/flush'),
  import('@oclif/core/handle'),
  import(new URL('../../dist/cli/base-command.js', import.meta.url).href),
])
const argv = process.argv.slice(2)
try {
  const config = await Config.load(launchOptions(root, argv, bin))
  await run(argv, loadOptionsOpening(config, longIdCluster()))
  await flush()
} catch (error) {
  await handle(error instanceof Error ? safeError(error, {dropColour: true}) : error)
}
