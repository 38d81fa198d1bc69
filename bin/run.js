#!/usr/bin/env node
import module, {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'
// node 22.1+ keeps the compiled code of the modules it loads on disk for the next run (node 20: nothing to do)
module.enableCompileCache?.()
// Off a terminal (scripts, cron, CI logs) an error stays on one line: oclif would wrap it at 80 columns.
// No colour there either: CI=true makes the colour libraries colour even when nobody reads a terminal.
if (!process.stderr.isTTY) {
  process.env.OCLIF_COLUMNS ??= '400'
  process.env.NO_COLOR ??= '1'
}
// The bin runs the built code: never oclif's lookup of TypeScript sources (NODE_ENV=development or test would map
// dist/ to src/, which node cannot load, e.g. the help class).
globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}
// (oclif's parts by their own entry points: its index also loads semver, ~50 modules, only to check node's version;
// its other start-up check is kept here: relative paths cannot work from a directory that is gone)
try {
  process.cwd()
} catch (error) {
  if (error?.code === 'ENOENT') process.stderr.write('WARNING: current directory does not exist\n')
}
// (start-up: oclif's layout packages loaded on first use, its plugins only where they can serve: dist/startup.js)
const [{deferOclifDependencies, fastLocaleCompare, fastPlatform, launchOptions}, {endOnOutputFailure, guardStdout}] = await Promise.all([
  import('../dist/startup.js'),
  import('../dist/io/stdout.js'),
])
deferOclifDependencies()
fastPlatform()
fastLocaleCompare()
// a reader that closes the pipe (| head) ends the run quietly; a full disk is one line on stderr, exit 1
guardStdout()
// oclif's CommonJS entry points required rather than imported: an import reads each file once more and scans it for
// its names
const require = createRequire(import.meta.url)
const {run} = require('@oclif/core/run')
const {flush} = require('@oclif/core/flush')
const {handle} = require('@oclif/core/handle')
const {safeError} = await import('../dist/cli/base-command.js')
const argv = process.argv.slice(2)

// oclif's execute(), with errors that never reached a command (an unknown command echoes its name) made
// terminal-safe like the commands' own. Their colour (oclif's plugins colour the command names) is dropped
// rather than shown escaped.
try {
  await run(argv, launchOptions(fileURLToPath(new URL('..', import.meta.url)), argv, import.meta.url))
  await flush()
} catch (error) {
  if (!endOnOutputFailure(error)) await handle(error instanceof Error ? safeError(error, {dropColour: true}) : error)
}
