import {spawnSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {
  DEFERRED_OCLIF_MODULES,
  DEFERRED_PACKAGES,
  deferred,
  englishCollation,
  fastLocaleCompare,
  fastPlatform,
  launchOptions,
  mayBeWsl,
  quietLogger,
} from '../../../src/startup.js'
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

  it("each deferred module of oclif's is one its modules require by a relative path, never through __importDefault, __importStar or __exportStar; the names served before it loads are its own", () => {
    const sources = oclifSources().join('\n')
    for (const [name, {light}] of Object.entries(DEFERRED_OCLIF_MODULES)) {
      const file = name.split('/').at(-1) === 'index' ? name.slice(0, -'/index'.length) : name
      const leaf = file.split('/').at(-1)!
      // required as "./help", "../help/index", "./read-tsconfig"…
      const requires = [...sources.matchAll(new RegExp(`(\\w*)\\(?require\\("(\\.{1,2}/[\\w./-]*\\b${leaf}(?:/index)?)"\\)`, 'g'))]
      expect(requires.length, name).toBeGreaterThan(0)
      for (const [, wrapper] of requires) expect(['__importDefault', '__importStar', '__exportStar'], name).not.toContain(wrapper)
      const real = requireAsOclif(`../${name}`)
      for (const key of light?.names ?? []) expect(real[key], key).toBe(requireAsOclif(`../${light!.module}`)[key])
    }
  })

  it('a deferred module serves the names it is given from the lighter module until it is loaded', () => {
    let loads = 0
    const light = {names: new Set<PropertyKey>(['normalize']), load: () => ({normalize: (s: string) => s.trim()})}
    const m = deferred(() => (loads++, {normalize: (s: string) => s.trim(), Help: class {}}), false, light) as {normalize: (s: string) => string; Help: unknown}
    expect(m.normalize(' a ')).toBe('a')
    expect(loads).toBe(0)
    expect(typeof m.Help).toBe('function')
    expect(loads).toBe(1)
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
      const helpLoaded = () => Object.keys(createRequire(import.meta.url).cache).some(f => /[\\\\/]lib[\\\\/]help[\\\\/]index\\.js$/.test(f))
      const before = loaded()
      const text = new Errors.CLIError('x '.repeat(60)).render()
      // oclif's help classes, as its main module requires them: the names of its help/util without them, the rest with them
      const help = createRequire(${JSON.stringify(join(OCLIF_LIB, 'main.js'))})('./help')
      const helpBefore = helpLoaded()
      const light = typeof help.normalizeArgv
      const helpLight = helpLoaded()
      const same = help.Help === (await import('@oclif/core/help')).Help
      console.log(JSON.stringify({before, after: loaded(), lines: text.split('\\n').length, helpBefore, light, helpLight, same, helpAfter: helpLoaded()}))
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
    expect(got).toMatchObject({helpBefore: false, light: 'function', helpLight: false, same: true, helpAfter: true})
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

describe("start-up: oclif's sort of its command ids without ICU's collator", () => {
  const english = new Intl.Collator('en-US')
  const posix = new Intl.Collator('en-US-u-va-posix')
  const alphabet = ' -:abcdefghijklmnopqrstuvwxyz'
  /** Random strings of `chars` (a fixed seed: the same strings every run). */
  const strings = (chars: string, n: number) => {
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    return Array.from({length: n}, () => Array.from({length: Math.floor(next() * 9)}, () => chars[Math.floor(next() * chars.length)]).join(''))
  }
  const installed = () => {
    const proto = {localeCompare: String.prototype.localeCompare}
    fastLocaleCompare(proto, true)
    return (a: string, b: string, ...rest: unknown[]) => Reflect.apply(proto.localeCompare, a, [b, ...rest]) as number
  }

  it("answers as the English (and POSIX) collation does for ids, names and topics of [a-z], space, '-' and ':'", () => {
    const compare = installed()
    const xs = strings(alphabet, 4000)
    for (let i = 1; i < xs.length; i++) {
      const [a, b] = [xs[i - 1], xs[i]]
      expect(compare(a, b), `${a} | ${b}`).toBe(english.compare(a, b))
      expect(compare(a, b), `${a} | ${b}`).toBe(posix.compare(a, b))
    }
    const ids = ['topic-hash:compute', 'topic-hash:bytes', 'group:explain', 'group', 'completion-values', 'completion', 'cluster:metadata-log', 'help']
    expect([...ids].sort(compare)).toEqual([...ids].sort((a, b) => english.compare(a, b)))
  })

  it("other strings, locales or options: the builtin's answer (digits, capitals, '_' and accents sort otherwise than their code units)", () => {
    const compare = installed()
    for (const [a, b] of [
      ['a1', 'a:'],
      ['B', 'a'],
      ['a_b', 'a-b'],
      ['é', 'f'],
    ]) {
      expect(compare(a, b), `${a} | ${b}`).toBe(english.compare(a, b))
      expect(Math.sign(a < b ? -1 : 1), `${a} | ${b}: not code-unit order`).not.toBe(english.compare(a, b))
    }
    expect(compare('a', 'b', 'en-US-u-kf-upper')).toBe(-1)
    expect(compare('a', 'A', 'en-US', {sensitivity: 'base'})).toBe(0)
  })

  it('only on an English or POSIX host (other languages reorder letters: Danish "aa" after "z"); installed once', () => {
    expect(englishCollation({})).toBe(true)
    expect(englishCollation({LANG: 'C.UTF-8'})).toBe(true)
    expect(englishCollation({LANG: 'en_GB.UTF-8', LC_ALL: 'POSIX'})).toBe(true)
    expect(englishCollation({LANG: 'da_DK.UTF-8'})).toBe(false)
    expect(englishCollation({LANG: 'en_US.UTF-8', LC_MESSAGES: 'et_EE.UTF-8'})).toBe(false)
    expect(englishCollation({LC_ALL: 'hu_HU'})).toBe(false)
    expect(new Intl.Collator('da').compare('aa', 'z')).toBe(1)
    const builtin = String.prototype.localeCompare
    const proto = {localeCompare: builtin}
    fastLocaleCompare(proto, false)
    expect(proto.localeCompare).toBe(builtin)
    fastLocaleCompare(proto, true)
    const fast = proto.localeCompare
    expect(fast).not.toBe(builtin)
    expect(fast.length).toBe(1)
    fastLocaleCompare(proto, true)
    expect(proto.localeCompare).toBe(fast)
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
    const atExit = `data:text/javascript,import {createRequire} from 'node:module';process.on('exit',()=>{for(const f of Object.keys(createRequire('/x.js').cache))process.stderr.write('LOADED '+f+'\\n');for(const m of process.moduleLoadList)process.stderr.write('NODE '+m+'\\n')})`
    const r = spawnSync(process.execPath, ['--no-warnings', '--experimental-loader', hook, '--import', atExit, join(ROOT, 'bin', 'run.js'), ...args], {
      encoding: 'utf8',
      env: {...process.env, NODE_OPTIONS: '', DEBUG: '', ...env},
    })
    expect(r.status, r.stderr).toBe(0)
    const paths = r.stderr.split('\n').flatMap(l => (l.startsWith('LOADED ') ? [l.slice(7)] : []))
    const packages = paths.flatMap(p => p.match(/node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/)?.[1] ?? [])
    const oclif = paths.flatMap(p => p.match(/@oclif[\\/]core[\\/]lib[\\/](.*)\.js$/)?.[1].replaceAll('\\', '/') ?? [])
    // node's own modules (not its internal ones) by their names
    const builtins = r.stderr.split('\n').flatMap(l => l.match(/^NODE NativeModule ((?!internal\/).*)$/)?.[1] ?? [])
    return {dist: paths.flatMap(p => p.match(/[\\/]dist[\\/](.*)$/)?.[1] ?? []), packages: [...new Set(packages)], oclif, builtins}
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
    const {dist, packages, oclif, builtins} = modulesLoaded(['topic-hash', 'compute', '-f', file, '--json'])
    rmSync(dir, {recursive: true})
    expect(dist).toContain('commands/topic-hash/compute.js')
    expect(dist.filter(f => /^config\/(client-config|tls-settings|sasl-settings|pkcs12)\.js$|^kafka\/client\.js$/.test(f))).toEqual([])
    expect(packages).toContain('@oclif/core')
    expect(packages).toContain('@node-rs/xxhash')
    // oclif's plugins, its platform probe (wsl-utils, is-wsl, …) and its debug output library
    expect(packages.filter(p => /^@oclif\/plugin-|wsl|docker|container|^debug$/.test(p))).toEqual([])
    // what a --json run does not use: the table and colour libraries, the spinner, the usage-error hints, oclif's help classes
    expect(packages.filter(p => /^(cli-table3|picocolors|ora)$/.test(p))).toEqual([])
    expect(dist.filter(f => /^render\/(table|progress|style)\.js$|^cli\/usage-errors\.js$/.test(f))).toEqual([])
    expect(oclif).toContain('config/plugin')
    expect(oclif.filter(f => f.startsWith('help/') && f !== 'help/util')).toEqual([])
    expect(builtins).toContain('fs/promises')
    expect(builtins.filter(m => /^(child_process|readline|perf_hooks)$/.test(m))).toEqual([])
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
