/**
 * The layering, checked on every source file's imports: sources (src/kafka is the only network module) -> a
 * pure core -> renderers, with thin commands. A new import that crosses a layer fails here, naming the file.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap(e =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** Every module specifier of a file: static imports and re-exports (type-only too), dynamic import(). */
export function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  const out: string[] = []
  for (const m of code.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g)) out.push(m[1])
  for (const m of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) out.push(m[1])
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1])
  return out
}

/** A relative specifier as a path under src ("render/table.js"); a package or node: specifier as it is. */
function target(file: string, spec: string): string {
  return spec.startsWith('.')
    ? relative(SRC, resolve(dirname(file), spec))
        .split('\\')
        .join('/')
    : spec
}

const FILES = sourceFiles(SRC).map(f => ({path: relative(SRC, f).split('\\').join('/'), imports: importsOf(readFileSync(f, 'utf8')).map(s => target(f, s))}))

/** Imports src/core may not make: each pattern names a layer or a package. */
const CORE_FORBIDDEN: Array<[RegExp, string]> = [
  [/^render\//, 'a renderer (src/render)'],
  [/^kafka\//, 'the Kafka adapter (src/kafka)'],
  [/^@platformatic\/kafka/, 'the Kafka client library'],
  [/^history\//, 'the audit history (src/history)'],
  [/^sources\//, 'a source (src/sources)'],
  [/^io\//, 'file I/O (src/io)'],
  [/^commands\/|^cli\//, 'a command or the CLI glue (src/cli)'],
  [/^operations\//, 'an operation (src/operations)'],
  [/^@oclif\//, 'oclif'],
  [/^(node:)?(fs|fs\/promises|net|tls|child_process|http|https|dgram)$/, 'I/O from node'],
  [/^(cli-table3|ora|chalk|picocolors|kleur|colorette|ansi-colors|ansi-styles|supports-color)$/, 'a terminal library'],
]

function violations(files: typeof FILES, rules: Array<[RegExp, string]>, where: (path: string) => boolean): string[] {
  const out: string[] = []
  for (const f of files.filter(x => where(x.path))) {
    for (const i of f.imports) for (const [re, what] of rules) if (re.test(i)) out.push(`${f.path} imports ${i} (${what})`)
  }
  return out
}

describe('architecture: the layers import one way', () => {
  it('finds the imports of every source file', () => {
    expect(FILES.length).toBeGreaterThan(50)
    const table = FILES.find(f => f.path === 'render/table.ts')!
    expect(table.imports).toEqual(expect.arrayContaining(['cli-table3', 'render/terminal.js']))
    expect(
      importsOf(`import type {A} from './a.js'\nexport {b} from "../b.js"\nconst c = await import('./c.js')\nimport './d.js'\n// import {e} from './e.js'`),
    ).toEqual(['./a.js', '../b.js', './d.js', './c.js'])
  })

  it('src/core imports no renderer, Kafka client, history, source, oclif, node I/O or terminal library', () => {
    expect(violations(FILES, CORE_FORBIDDEN, p => p.startsWith('core/'))).toEqual([])
  })

  it('fails on a violation (the check itself can fail)', () => {
    const bad = [{path: 'core/x.ts', imports: ['render/table.js', 'node:fs', '@oclif/core', 'kafka/client.js', 'history/store.js', 'cli-table3']}]
    expect(violations(bad, CORE_FORBIDDEN, p => p.startsWith('core/'))).toHaveLength(6)
  })

  it('src imports no @platformatic/kafka (a devDependency: the SASL parity test and a bench compare with it)', () => {
    expect(violations(FILES, [[/^@platformatic\/kafka/, 'the Kafka client library']], () => true)).toEqual([])
  })

  it('sources and commands read a cluster through the ClusterReader seam, not the concrete client', () => {
    const rules: Array<[RegExp, string]> = [
      [/^kafka\/(client|protocol|connection|metadata|groups|messages\/\w+)\.js$/, 'the concrete Kafka client (use kafka/cluster-reader.js)'],
    ]
    expect(violations(FILES, rules, p => p.startsWith('sources/') || p.startsWith('commands/'))).toEqual([])
  })

  it('only src/render and the command base class use the terminal libraries', () => {
    const rules: Array<[RegExp, string]> = [[/^(cli-table3|ora|chalk|picocolors|kleur|colorette)$/, 'a terminal library']]
    expect(violations(FILES, rules, p => !p.startsWith('render/'))).toEqual([])
  })

  it('sources only read: no operation, command or CLI glue; operations are used by commands, not the other way', () => {
    const up: Array<[RegExp, string]> = [[/^(operations|commands|cli)\//, 'an operation, a command or the CLI glue']]
    expect(violations(FILES, up, p => p.startsWith('sources/') || p.startsWith('kafka/') || p.startsWith('history/'))).toEqual([])
    expect(violations(FILES, [[/^commands\//, 'a command']], p => p.startsWith('operations/'))).toEqual([])
    expect(violations(FILES, [[/^cli\//, 'the CLI glue (oclif)']], p => p.startsWith('operations/'))).toEqual([])
  })

  it('commands are thin: under 130 lines, their exit codes and stderr lines through the base class (one channel)', () => {
    const commands = sourceFiles(join(SRC, 'commands')).map(f => ({path: relative(SRC, f), text: readFileSync(f, 'utf8')}))
    expect(commands.length).toBeGreaterThan(10)
    expect(commands.filter(c => c.text.split('\n').length > 130).map(c => c.path)).toEqual([])
    expect(commands.filter(c => /process\.exitCode|process\.stderr\.write/.test(c.text)).map(c => c.path)).toEqual([])
  })

  it('renderers read data only: no Kafka, no sources, no history store, no commands', () => {
    const rules: Array<[RegExp, string]> = [[/^(kafka|sources|history|commands|io)\/|^@platformatic\//, 'I/O or a command']]
    expect(violations(FILES, rules, p => p.startsWith('render/'))).toEqual([])
  })

  it('explanation flows one way: evidence functions know nothing of settle or the report builder; settle no source', () => {
    const evidence = FILES.filter(f => f.path.startsWith('core/explain/evidence/'))
    expect(evidence.map(f => f.path)).toEqual(
      expect.arrayContaining(['core/explain/evidence/history.js', 'core/explain/evidence/metadata-log.js'].map(p => p.replace('.js', '.ts'))),
    )
    const downstream: Array<[RegExp, string]> = [[/^core\/explain\/(explain|settle)\.js$/, 'the settle step or the pipeline (evidence comes first)']]
    expect(violations(FILES, downstream, p => p.startsWith('core/explain/evidence/') || p.startsWith('core/explain/search/'))).toEqual([])
    // settle reads evidence as data: the evidence types, never a source's function
    const sources: Array<[RegExp, string]> = [[/^core\/explain\/evidence\/(?!types\.js$)/, 'an evidence source (settle takes evidence as data)']]
    expect(violations(FILES, sources, p => p === 'core/explain/settle.ts')).toEqual([])
    // only the pipeline calls the evidence sources and settle
    const callers = FILES.filter(f => f.imports.includes('core/explain/settle.js')).map(f => f.path)
    expect(callers).toEqual(['core/explain/explain.ts'])
  })
})
