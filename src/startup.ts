/**
 * Start-up (bin/run.js, before oclif loads): what oclif does on every run for nothing on most of them. A
 * cron audit pays start-up every run, about half of an incremental audit's second here.
 * - @oclif/core's modules require at their top packages they use only to lay out help and errors, animate a
 *   spinner or find commands without a manifest (wrap-ansi with string-width, ejs, tinyglobby, …, ~30-40 ms of
 *   loading), and some of its own modules only help uses (its help classes, ~5 modules). deferOclifDependencies
 *   loads each on its first use instead.
 * - oclif reads and registers its plugins (help, not-found) before it looks at the command line.
 *   They serve their own commands, an unknown command and the completion values only: a run of one of our own
 *   commands loads without them (launchOptions), and without the `debug` package when DEBUG is unset.
 * - oclif's Config.load asks wsl-utils (6 ES modules, found through a package resolution each) whether this is WSL;
 *   is-wsl's own probes, made first, answer "no" on every other Linux (fastPlatform).
 * - oclif sorts its command ids with localeCompare: the first call builds ICU's collator (in instructions, about a
 *   seventh of a bare node's start-up) for an order that is the ids' code-unit order (fastLocaleCompare).
 * Not in src/core: it patches node's module loader and reads the package.
 */
import {existsSync, readFileSync} from 'node:fs'
import Module, {createRequire} from 'node:module'
import {platform, release} from 'node:os'
import {dirname, join, relative, resolve, sep} from 'node:path'

/**
 * Required by @oclif/core at the top of its modules and used only by help, error layout, spinners, ejs templates,
 * manifest-less command discovery, settings outside package.json and debug output. Those oclif takes by `__importDefault(require(x))` carry no `__esModule` flag
 * (the start-up test checks it), so oclif wraps them without touching them.
 */
export const DEFERRED_PACKAGES = [
  'wrap-ansi',
  'string-width',
  'widest-line',
  'indent-string',
  'clean-stack',
  'cli-spinners',
  'ejs',
  'tinyglobby',
  'minimatch',
  'ansi-escapes',
  'wordwrap',
  // the finder of oclif settings outside a package.json (ours and its plugins' have theirs in it)
  'lilconfig',
  // its logger's output library: used only when DEBUG is set (quietLogger)
  'debug',
  // node's own, with the modules they load in turn (~20 of node's internal modules): asking Windows for the parent
  // process under WSL, reading a missing argument from stdin, its performance marks (OCLIF_PERF)
  'node:child_process',
  'node:readline',
  'node:perf_hooks',
] as const

/**
 * oclif's own modules (by their path under @oclif/core/lib) that the modules every run loads require at their top and
 * use only for help or TypeScript sources: loaded on their first use. oclif takes none of them by `__importDefault`,
 * `__importStar` or `__exportStar`, which would read it as it requires it (the start-up test checks it). `light`: the
 * names they re-export from a module every run loads anyway, served from there without loading them (oclif's main
 * reads two of them on every run).
 */
export const DEFERRED_OCLIF_MODULES: Readonly<Record<string, {light?: {module: string; names: readonly string[]}}>> = {
  'help/index': {light: {module: 'help/util', names: ['getHelpFlagAdditions', 'normalizeArgv', 'standardizeIDFromArgv']}},
  // the flags' part of a help text (the parser's index re-exports it)
  'parser/help': {},
  // tsconfig.json, read to run TypeScript sources (never: bin/run.js turns oclif's TypeScript lookup off)
  'util/read-tsconfig': {},
}

/**
 * Deferred packages whose calls are deferred too: oclif makes a `debug` logger for each Config.load (of a command's
 * run too) even where a logger is already set and its own is thrown away unused.
 */
const CALLS_DEFERRED = new Set<string>(['debug'])

type Load = (request: string, parent: {filename?: string | null} | undefined, isMain: boolean) => unknown

/**
 * The module `load()` gives, loaded on the first use of any of its properties or a call (none of them is constructed).
 * With `deferCalls`, a call is deferred too: it gives what the call would, made on the first use of that.
 * With `light`, the properties it names are read from the module `light.load()` gives until the module is loaded.
 */
export function deferred(load: () => unknown, deferCalls = false, light?: {names: ReadonlySet<PropertyKey>; load: () => object}): unknown {
  let real: unknown
  const target = () => (real ??= load()) as object
  const early = (p: PropertyKey) => real === undefined && light?.names.has(p)
  // (an arrow function: no non-configurable `prototype` for the traps below to have to report)
  return new Proxy(() => {}, {
    // oclif's __importDefault reads __esModule as it requires: none of these packages sets it
    get: (_, p) => (p === '__esModule' && real === undefined ? undefined : Reflect.get(early(p) ? light!.load() : target(), p)),
    has: (_, p) => Reflect.has(target(), p),
    apply: (_, self, args) => {
      const call = () => Reflect.apply(target() as (...a: unknown[]) => unknown, self, args)
      return deferCalls ? deferred(call) : call()
    },
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, p) => {
      const d = Reflect.getOwnPropertyDescriptor(target(), p)
      // a proxy may not report a property its function target lacks as non-configurable
      return d && {...d, configurable: true}
    },
  })
}

let installed = false

const OCLIF_LIB = /^(.*[\\/]@oclif[\\/]core[\\/]lib)[\\/]/

/** The last part of the relative requests that can name one of DEFERRED_OCLIF_MODULES ("./help", "../help/index"). */
const OWN_LEAVES = new Set(Object.keys(DEFERRED_OCLIF_MODULES).flatMap(k => k.split('/').slice(-2)))

/**
 * From now on, @oclif/core's requires of DEFERRED_PACKAGES and DEFERRED_OCLIF_MODULES are loaded on first use. Does
 * nothing where node's loader has no `_load`.
 */
export function deferOclifDependencies(): void {
  const loader = Module as unknown as {_load?: Load}
  const original = loader._load
  if (installed || typeof original !== 'function') return
  installed = true
  const names = new Set<string>(DEFERRED_PACKAGES)
  loader._load = function (this: unknown, request, parent, isMain) {
    // (every require of the process passes here: the names first, the paths only for a possible one)
    const pkg = names.has(request)
    const lib = pkg || OWN_LEAVES.has(request.slice(request.lastIndexOf('/') + 1)) ? OCLIF_LIB.exec(parent?.filename ?? '')?.[1] : undefined
    const own = lib !== undefined && !pkg && request.startsWith('.') ? oclifModule(lib, resolve(dirname(parent!.filename!), request)) : undefined
    if (lib === undefined || (!pkg && own === undefined)) return original.call(this, request, parent, isMain)
    const load = () => original.call(loader, request, parent, isMain)
    const light = own === undefined ? undefined : DEFERRED_OCLIF_MODULES[own].light
    let lighter: object | undefined
    const loadLighter = () => (lighter ??= original.call(loader, join(lib, light!.module), parent, false) as object)
    return deferred(load, CALLS_DEFERRED.has(request), light && {names: new Set(light.names), load: loadLighter})
  }
}

/** The key of DEFERRED_OCLIF_MODULES the path of a module of oclif's `lib` directory names, if any. */
function oclifModule(lib: string, path: string): string | undefined {
  const name = relative(lib, path).split(sep).join('/').replace(/\.js$/, '')
  const key = Object.hasOwn(DEFERRED_OCLIF_MODULES, name) ? name : `${name}/index`
  return Object.hasOwn(DEFERRED_OCLIF_MODULES, key) ? key : undefined
}

/**
 * Could this be WSL? is-wsl's probes, in its order, without its container check (which only turns a "yes" into a
 * "no"): a Linux kernel, /proc/version or the WSL interop paths that name Microsoft. On Linux, `read` and `exists`
 * are node's.
 */
export function mayBeWsl(
  os = process.platform,
  kernel = release,
  read: (path: string) => string = p => readFileSync(p, 'utf8'),
  exists: (path: string) => boolean = existsSync,
): boolean {
  if (os !== 'linux') return false
  if (kernel().toLowerCase().includes('microsoft')) return true
  try {
    if (read('/proc/version').toLowerCase().includes('microsoft')) return true
  } catch {}
  return exists('/proc/sys/fs/binfmt_misc/WSLInterop') || exists('/run/WSL')
}

type PlatformModule = {getPlatform: () => Promise<string>}

/**
 * oclif's getPlatform ('wsl' where wsl-utils says so, else node's platform), asking wsl-utils only where it could say
 * "wsl" (mayBeWsl): elsewhere its answer is node's platform. oclif calls it through its module's exports.
 */
export function fastPlatform(oclifOs?: PlatformModule, maybe: () => boolean = mayBeWsl): void {
  const os = oclifOs ?? (createRequire(createRequire(import.meta.url).resolve('@oclif/core/run'))('./util/os.js') as PlatformModule)
  const original = os.getPlatform
  os.getPlatform = () => (maybe() ? original() : Promise.resolve(platform()))
}

/** oclif's logger (the `debug` package) where DEBUG asks for output; else one that says nothing, as `debug` would. */
export function quietLogger(env: NodeJS.ProcessEnv = process.env): OclifLogger | undefined {
  if (env.DEBUG) return undefined
  const silent = () => {}
  const make = (namespace: string): OclifLogger => ({
    namespace,
    child: (ns, delimiter) => make(`${namespace}${delimiter ?? ':'}${ns}`),
    debug: silent,
    error: silent,
    info: silent,
    trace: silent,
    warn: silent,
  })
  return make('oclif')
}

type Log = (formatter: unknown, ...args: unknown[]) => void
type OclifLogger = {namespace: string; child: (ns: string, delimiter?: string) => OclifLogger; debug: Log; error: Log; info: Log; trace: Log; warn: Log}

/**
 * What to hand oclif's run(): `entry` (its root found from there, the plugins loaded) unless `argv` names one of
 * the package's own commands, without help or version flags and other than completion-values (which lists every
 * command, the plugins' too): then the package's root and its package.json without the plugins.
 */
export function launchOptions(
  root: string,
  argv: readonly string[],
  entry: string,
): string | {root: string; pjson: Record<string, unknown>; logger?: OclifLogger} {
  const [a, b] = argv
  const word = (w: string | undefined): w is string => w !== undefined && /^[a-z][a-z0-9-]*$/.test(w)
  if (!word(a) || a === 'completion-values') return entry
  if (argv.some(w => w === '--help' || w === '-h' || w === '--version')) return entry
  let pjson: {oclif?: {commands?: unknown; plugins?: unknown}}
  try {
    pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  } catch {
    return entry
  }
  const commands = pjson.oclif?.commands
  if (typeof commands !== 'string') return entry
  const dir = join(root, commands)
  if (!existsSync(join(dir, `${a}.js`)) && !(word(b) && existsSync(join(dir, a, `${b}.js`)))) return entry
  const {plugins: _, ...oclif} = pjson.oclif!
  const logger = quietLogger()
  return {root, pjson: {...pjson, oclif}, ...(logger && {logger})}
}

const FAST = new WeakSet<object>()

/** Characters whose order in ICU's root and English collations (non-ignorable punctuation) is their code units'. */
const CODE_UNIT_ORDERED = /^[ \-:a-z]*$/

/**
 * Is the collation of the host's default locale (ICU reads LC_ALL, LC_MESSAGES, LANG) the root's for
 * CODE_UNIT_ORDERED text? English and C/POSIX (unset) are: other languages reorder letters (Danish "aa", Estonian "z",
 * Hungarian "cs"…).
 */
export function englishCollation(env: NodeJS.ProcessEnv = process.env): boolean {
  return [env.LC_ALL, env.LC_MESSAGES, env.LANG].every(v => !v || /^(?:en(?:[_.@-]|$)|C(?:[.@]|$)|POSIX$)/.test(v))
}

/**
 * String.prototype.localeCompare that answers without ICU's collator where the answer is the code units' order: no
 * locales or options asked, both strings CODE_UNIT_ORDERED, an English or POSIX host. Other calls are the builtin's.
 * oclif sorts its command ids with it as it loads; building the collator for them costs more than the whole sort.
 * It stays for the run: every answer is the builtin's (our own sorts of group and topic names get the same order).
 */
export function fastLocaleCompare(proto: {localeCompare: (...a: never[]) => number} = String.prototype, english = englishCollation()): void {
  const builtin = proto.localeCompare as (this: unknown, ...a: unknown[]) => number
  if (!english || FAST.has(builtin)) return
  const localeCompare = function (this: unknown, that: unknown, ...rest: unknown[]): number {
    if (rest.length === 0 && typeof this === 'string' && typeof that === 'string' && CODE_UNIT_ORDERED.test(this) && CODE_UNIT_ORDERED.test(that))
      return this < that ? -1 : this > that ? 1 : 0
    return Reflect.apply(builtin, this, [that, ...rest])
  }
  FAST.add(localeCompare)
  Object.defineProperty(proto, 'localeCompare', {...Object.getOwnPropertyDescriptor(proto, 'localeCompare'), value: localeCompare})
}
