import {spawnSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {DEFERRED_PACKAGES, deferred, fastPlatform, launchOptions, mayBeWsl, quietLogger} from '../../../src/startup.js'
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
      expect(sources.includes(`require("${name}")`) || sources.includes(`require('${name}')`), name).toBe(true)
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

describe("start-up: oclif's platform without wsl-utils where it cannot be WSL", () => {
  const linux = (kernel: string, version: string | Error, paths: string[] = []) =>
    mayBeWsl(
      'linux',
      () => kernel,
      () => {
        if (version instanceof Error) throw version
        return version
      },
      p => paths.includes(p),
    )

  it("is-wsl's probes: a Microsoft kernel release, /proc/version, or WSL's interop paths; never off Linux", () => {
    expect(linux('5.15.167.4-microsoft-standard-WSL2', '')).toBe(true)
    expect(linux('4.4.0-19041-Microsoft', '')).toBe(true)
    expect(linux('6.6.1-custom', 'Linux version 6.6.1 (gcc) Microsoft')).toBe(true)
    expect(linux('6.6.1-custom', new Error('EACCES'), ['/run/WSL'])).toBe(true)
    expect(linux('6.6.1-custom', '', ['/proc/sys/fs/binfmt_misc/WSLInterop'])).toBe(true)
    expect(linux('6.8.0-45-generic', 'Linux version 6.8.0-45-generic (buildd@ubuntu)')).toBe(false)
    expect(linux('6.8.0-45-generic', new Error('ENOENT'))).toBe(false)
    expect(mayBeWsl('darwin', () => 'microsoft')).toBe(false)
  })

  it("node's platform where it cannot be WSL, oclif's own answer (wsl-utils) where it may be", async () => {
    let asked = 0
    const os = {getPlatform: async () => (asked++, 'wsl')}
    fastPlatform(os, () => false)
    expect(await os.getPlatform()).toBe(process.platform)
    expect(asked).toBe(0)
    const maybe = {getPlatform: async () => (asked++, 'wsl')}
    fastPlatform(maybe, () => true)
    expect(await maybe.getPlatform()).toBe('wsl')
    expect(asked).toBe(1)
  })
})

describe('start-up: debug output only where DEBUG asks for it', () => {
  it('no DEBUG: a logger that says nothing, with the namespaces oclif builds; DEBUG set: none (oclif makes its own)', () => {
    const logger = quietLogger({})!
    expect(logger.namespace).toBe('oclif')
    expect(logger.child('config').child('plugin', '#').namespace).toBe('oclif:config#plugin')
    expect(logger.debug('x %s', 'y')).toBeUndefined()
    expect(quietLogger({DEBUG: 'oclif*'})).toBeUndefined()
    expect(quietLogger({DEBUG: ''})).toBeDefined()
  })

  it('a deferred call is made on the first use of what it gives, a call not used never loads the module', () => {
    let loads = 0
    const factory = (ns: string) => Object.assign((s: string) => `${ns}:${s}`, {namespace: ns})
    const debug = deferred(() => (loads++, factory), true) as typeof factory
    const unused = debug('thrown away')
    const used = debug('oclif')
    expect(loads).toBe(0)
    expect(typeof unused).toBe('function')
    expect(used('x')).toBe('oclif:x')
    expect(used.namespace).toBe('oclif')
    expect(loads).toBe(1)
  })
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
      // (the logger: none where the test's environment sets DEBUG)
      expect(Object.hasOwn(o as object, 'logger'), argv.join(' ')).toBe(!process.env.DEBUG)
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

  /** The package's modules (dist/…) and the packages (node_modules) a run of bin/run.js with `args` loads, in order. */
  const modulesLoaded = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    // ES modules as node loads them; CommonJS ones from require's cache as the process ends
    const hook = `data:text/javascript,export async function load(u,c,n){process.stderr.write('LOADED '+u+'\\n');return n(u,c)}`
    const atExit = `data:text/javascript,import {createRequire} from 'node:module';process.on('exit',()=>{for(const f of Object.keys(createRequire('/x.js').cache))process.stderr.write('LOADED '+f+'\\n')})`
    const r = spawnSync(process.execPath, ['--no-warnings', '--experimental-loader', hook, '--import', atExit, join(ROOT, 'bin', 'run.js'), ...args], {
      encoding: 'utf8',
      env: {...process.env, NODE_OPTIONS: '', DEBUG: '', ...env},
    })
    expect(r.status, r.stderr).toBe(0)
    const paths = r.stderr.split('\n').flatMap(l => (l.startsWith('LOADED ') ? [l.slice(7)] : []))
    const packages = paths.flatMap(p => p.match(/node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/)?.[1] ?? [])
    return {dist: paths.flatMap(p => p.match(/[\\/]dist[\\/](.*)$/)?.[1] ?? []), packages: [...new Set(packages)]}
  }

  it('an offline topic-hash compute (-f) loads neither the settings resolver (client.properties, TLS, SASL) nor the Kafka client, nor the WSL probe or debug output', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-startup-'))
    const file = join(dir, 'one.json')
    writeFileSync(
      file,
      JSON.stringify({
        brokers: [{id: 1, rack: null}],
        topics: [{name: 'orders', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: [{partition: 0, replicas: [1]}]}],
      }),
    )
    const {dist, packages} = modulesLoaded(['topic-hash', 'compute', '-f', file, '--json'])
    rmSync(dir, {recursive: true})
    expect(dist).toContain('commands/topic-hash/compute.js')
    expect(dist.filter(f => /^config\/(client-config|tls-settings|sasl-settings|pkcs12)\.js$|^kafka\/client\.js$/.test(f))).toEqual([])
    expect(packages).toContain('@oclif/core')
    expect(packages).toContain('@node-rs/xxhash')
    // oclif's plugins, its platform probe (wsl-utils, is-wsl, …) and its debug output library
    expect(packages.filter(p => /^@oclif\/plugin-|wsl|docker|container|^debug$/.test(p))).toEqual([])
  }, 30_000)

  it('debug output where DEBUG asks for it: the debug package loaded', () => {
    expect(modulesLoaded(['completion', 'bash'], {DEBUG: 'oclif:nothing'}).packages).toContain('debug')
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
