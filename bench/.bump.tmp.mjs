import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {clusterEnv} from './test-cluster.js'
const env = clusterEnv()
const javaArgs = ['-Xmx1g', `-Dlog4j2.configurationFile=${join(env.IT_DIR, 'config', 'tools-log4j2.properties')}`, '-cp', `${env.DRIVER_CLASSES}:${env.LIBS}/*`]
const flood = spawn('java', [...javaArgs, 'GroupFlood', env.BOOTSTRAP, `bench-incr-${Date.now().toString(36)}`, process.argv[2] ?? '75', '8', '1', 'bench-audit-t', '100', '0'], {stdio: ['pipe', 'pipe', 'inherit']})
await new Promise((resolve, reject) => { createInterface({input: flood.stdout}).once('line', resolve); flood.once('exit', c => c ? reject(new Error('flood ' + c)) : resolve()) })
flood.stdin.end()
await new Promise(r => flood.exitCode === null ? flood.once('exit', r) : r())
console.log('bumped')
