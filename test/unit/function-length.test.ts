/**
 * Functions short enough to read in one screen: every function, method and arrow function in src/ is at most
 * MAX_LINES lines long, unless a comment before it says why it must be longer (`long because: …`). Read with the
 * TypeScript compiler's parser, so a function is what the language says it is, not what a pattern guesses.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'
import {describe, expect, it} from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const SRC = join(ROOT, 'src')
const MAX_LINES = 100
const JUSTIFIED = /long because:/

export interface LongFunction {
  /** "src/x.ts name" (an unnamed function: "src/x.ts <anonymous>:LINE"). */
  readonly id: string
  readonly name: string
  readonly line: number
  readonly lines: number
  readonly justified: boolean
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap(e =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  )
}

/** The nodes a function's leading comment may sit before: itself, and what declares it (`const f = () => …`). */
function declaringNodes(fn: ts.Node): ts.Node[] {
  const out = [fn]
  let n = fn.parent
  while (
    n &&
    (ts.isVariableDeclaration(n) ||
      ts.isVariableDeclarationList(n) ||
      ts.isVariableStatement(n) ||
      ts.isPropertyAssignment(n) ||
      ts.isPropertyDeclaration(n) ||
      ts.isExportAssignment(n) ||
      ts.isParenthesizedExpression(n) ||
      ts.isAsExpression(n) ||
      ts.isSatisfiesExpression(n))
  ) {
    out.push(n)
    n = n.parent
  }
  return out
}

function nameOf(fn: ts.FunctionLikeDeclaration, sf: ts.SourceFile, line: number): string {
  if (ts.isConstructorDeclaration(fn)) return 'constructor'
  if (fn.name) return fn.name.getText(sf)
  const p = fn.parent
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText(sf)
  return `<anonymous>:${line}`
}

/** Every function in the text longer than `max` lines (first line to last, both counted). */
export function longFunctions(path: string, text: string, max = MAX_LINES): LongFunction[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const out: LongFunction[] = []
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line
      const lines = last - first + 1
      if (lines > max) {
        const justified = declaringNodes(node).some(n =>
          (ts.getLeadingCommentRanges(text, n.getFullStart()) ?? []).some(c => JUSTIFIED.test(text.slice(c.pos, c.end))),
        )
        const name = nameOf(node, sf, first + 1)
        out.push({id: `${path} ${name}`, name, line: first + 1, lines, justified})
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

const LONG = sourceFiles(SRC).flatMap(f => longFunctions(relative(ROOT, f).split('\\').join('/'), readFileSync(f, 'utf8')))

describe('function length', () => {
  it(`every function in src/ is at most ${MAX_LINES} lines, or a comment before it says why it is longer ("long because: …")`, () => {
    const unjustified = LONG.filter(f => !f.justified).map(f => `${f.id} (line ${f.line}): ${f.lines} lines`)
    expect(unjustified).toEqual([])
  })

  it('counts functions, methods and arrow functions, and accepts the reason in a comment before the declaration', () => {
    const body = (n: number) => Array.from({length: n}, (_, i) => `  const x${i} = ${i}`).join('\n')
    const text = [
      `function short() {\n${body(98)}\n}`,
      `function long() {\n${body(99)}\n}`,
      `// long because: a flat table\nexport const table = () => {\n${body(99)}\n}`,
      `class C {\n  method() {\n${body(99)}\n  }\n}`,
      `const f = function () {\n${body(99)}\n}`,
    ].join('\n')
    expect(longFunctions('x.ts', text).map(f => [f.id, f.lines, f.justified])).toEqual([
      ['x.ts long', 101, false],
      ['x.ts table', 101, true],
      ['x.ts method', 101, false],
      ['x.ts f', 101, false],
    ])
  })
})
