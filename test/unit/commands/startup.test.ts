import {spawnSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {DEFERRED_PACKAGES, deferred, launchOptions} from '../../../src/startup.js'
import {ROOT} from '../helpers.js'

const OCLIF_LIB = join(ROOT, 'node_modules', '@oclif', 'core', 'lib')
const requireAsOclif = createRequire(join(OCLIF_LIB, 'config', 'config.js'))

/** Every .js file of @oclif/core's lib, as text. */
function oclifSources(dir = OCLIF_LIB): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap(e =>
    e.isDirectory() ? oclifSources(join(dir, e.name)) : e.name.endsWith('.js') ? [readFileSync(join(dir, e.name), 'utf8')] : [],
  )
}

describe('start-up: oclif dependencies loaded on first use', () => {
  it('each deferred package is one @oclif/core requires; those it takes by __importDefault carry no __esModule flag (read as it requires them)', () => {
    const sources = oclifSources().join('\n')
    for (const name of DEFERRED_PACKAGES) {
      expect(sources, name).toContain(`require("${name}")`)
      expect(sources, name).not.toContain(`__importStar(require("${name}"))`)
      const m = requireAsOclif(name)
      expect(m, name).toBeTruthy()
      if (sources.includes(`__importDefault(require("${name}"))`)) expect(m.__esModule, name).toBeFalsy()
    }
  })

  it('a deferred module is not loaded until used, then behaves as the module', () => {
    let loads = 0
    const real = Object.assign((x: number) => x * 2, {render: (s: string) => `<${s}>`, spinners: {dots: 1}})
    const m = deferred(() => (loads++, real)) as typeof real & {__esModule?: unknown}
    expect(m.__esModule).toBeUndefined()
    expect(loads).toBe(0)
    expect(m(21)).toBe(42)
    expect(m.render('a')).toBe('<a>')
    expect('spinners' in m).toBe(true)
    expect(Object.keys(m)).toEqual(['render', 'spinners'])
    expect(loads).toBe(1)
  })

  it('in a process: oclif loads without them, and an error laid out by oclif loads and uses wrap-ansi', () => {
    const script = `
      const {deferOclifDependencies} = await import(${JSON.stringify(join(ROOT, 'dist', 'startup.js'))})
      deferOclifDependencies()
      await Promise.all([import('@oclif/core/run'), import('@oclif/core/handle'), import('@oclif/core/flush'), import('@oclif/core/command')])
      const Errors = await import('@oclif/core/errors')
      const {createRequire} = await import('node:module')
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter(f => /node_modules[\\\\/](wrap-ansi|ejs|tinyglobby|clean-stack)[\\\\/]/.test(f)).length
      const before = loaded()
      const text = new Errors.CLIError('x '.repeat(60)).render()
      console.log(JSON.stringify({before, after: loaded(), lines: text.split('\\n').length}))
    `
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {...process.env, NODE_OPTIONS: '', OCLIF_COLUMNS: '40'},
    })
    expect(r.stderr).toBe('')
    const got = JSON.parse(r.stdout)
    expect(got.before).toBe(0)
    expect(got.after).toBeGreaterThan(0)
    expect(got.lines).toBeGreaterThan(2) // wrapped at 40 columns
  }, 30_000)
})

describe('start-up: the plugins only where they can serve', () => {
  const entry = 'file:///x/bin/run.js'

  it("one of the package's own commands: its root and package.json without the plugins", () => {
    for (const argv of [
      ['audit', '--json'],
      ['group', 'explain', 'g'],
      ['topic-hash', 'compute', 't'],
      ['completion', 'bash'],
    ]) {
      const o = launchOptions(ROOT, argv, entry)
      expect(o, argv.join(' ')).toMatchObject({root: ROOT, pjson: {name: 'rebalance-doctor', oclif: {commands: './dist/commands'}}})
      expect((o as unknown as {pjson: {oclif: object}}).pjson.oclif).not.toHaveProperty('plugins')
    }
  })

  it('through bin/run.js: oclif loads no plugin for one of our commands, and the help plugin for help', () => {
    const pluginLines = (...args: string[]) => {
      const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], {
        encoding: 'utf8',
        env: {...process.env, NODE_OPTIONS: '', DEBUG: 'oclif*'},
      })
      expect(r.status, r.stderr).toBe(0)
      return r.stderr.split('\n').filter(l => l.includes('@oclif/plugin-')).length
    }
    expect(pluginLines('completion', 'bash')).toBe(0)
    expect(pluginLines('help')).toBeGreaterThan(0)
  }, 30_000)

  it('an offline topic-hash compute (-f) loads neither the settings resolver (client.properties, TLS, SASL) nor the Kafka client', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-startup-'))
    const file = join(dir, 'one.json')
    writeFileSync(
      file,
      JSON.stringify({
        brokers: [{id: 1, rack: null}],
        topics: [{name: 'orders', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: [{partition: 0, replicas: [1]}]}],
      }),
    )
    // a loader hook that names each of the package's modules as node loads it
    const hook = `data:text/javascript,export async function load(u,c,n){if(u.includes('/dist/'))process.stderr.write('LOADED '+u.split('/dist/')[1]+'\\n');return n(u,c)}`
    const r = spawnSync(
      process.execPath,
      ['--no-warnings', '--experimental-loader', hook, join(ROOT, 'bin', 'run.js'), 'topic-hash', 'compute', '-f', file, '--json'],
      {
        encoding: 'utf8',
        env: {...process.env, NODE_OPTIONS: ''},
      },
    )
    rmSync(dir, {recursive: true})
    expect(r.status, r.stderr).toBe(0)
    const loaded = r.stderr.split('\n').flatMap(l => (l.startsWith('LOADED ') ? [l.slice(7)] : []))
    expect(loaded).toContain('commands/topic-hash/compute.js')
    expect(loaded.filter(f => /^config\/(client-config|tls-settings|sasl-settings|pkcs12)\.js$|^kafka\/client\.js$/.test(f))).toEqual([])
  }, 30_000)

  it('help, version, topics, unknown commands, completion values and odd words: the entry (plugins loaded)', () => {
    for (const argv of [
      [],
      ['--help'],
      ['help', 'audit'],
      ['audit', '--help'],
      ['audit', '-h'],
      ['--version'],
      ['group'],
      ['grop'],
      ['group', 'explian'],
      ['autocomplete', 'bash'],
      ['completion-values', '--', 'gr'],
      ['../base-command'],
      ['Audit'],
      ['-b', 'x'],
    ]) {
      expect(launchOptions(ROOT, argv, entry), argv.join(' ')).toBe(entry)
    }
  })
})
