/**
 * The CLI (bin/run.js, as a user runs it) against the long-id fake cluster (test/lib/long-ids.ts), for tests that
 * need a real process: a pty from `script`, a pipe, an environment of their own. `tsx test/lib/fake-cli.ts ARGS…`.
 */
import {fileURLToPath} from 'node:url'
import {setClusterFactory} from '../../src/kafka/session.js'
import {longIdCluster} from './long-ids.js'

const fake = longIdCluster()
setClusterFactory(async () => fake)
const bin = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
process.argv = [process.argv[0], bin, ...process.argv.slice(2)]
await import(bin)
