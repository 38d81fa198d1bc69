/** Hints that name docs/NAME.md give the document's path in the package, when the package has it. */
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {withInstalledDocs} from '../../src/cli/doc-paths.js'
import {ROOT} from './helpers.js'

describe('withInstalledDocs', () => {
  it('names the installed document by its full path; one the package lacks keeps its repository path', () => {
    const root = `${mkdtempSync(join(tmpdir(), 'rd-docs-'))}/`
    mkdirSync(join(root, 'docs'))
    writeFileSync(join(root, 'docs', 'output.md'), '# Output\n')
    expect(withInstalledDocs('See docs/output.md#errors; and docs/missing.md.', root)).toBe(`See ${root}docs/output.md#errors; and docs/missing.md.`)
  })

  it('by default, the package this code runs from: here the checkout, whose docs/ the package ships', () => {
    expect(withInstalledDocs('See docs/hash-and-metadata-file.md; or not')).toBe(`See ${ROOT}docs/hash-and-metadata-file.md; or not`)
  })
})
