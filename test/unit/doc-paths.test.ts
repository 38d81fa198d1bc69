/** Hints and help texts that name docs/NAME.md give the document's path in the package, when the package has it. */
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Command} from '@oclif/core/command'
import {describe, expect, it} from 'vitest'
import {withInstalledDocs} from '../../src/cli/doc-paths.js'
import {withDocPaths} from '../../src/cli/help.js'
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

describe('help texts name the installed documents', () => {
  const installed = (s: string) => s.replaceAll('docs/', '/opt/rd/docs/')

  it("replaces the paths in every text of a command (summary, description, examples, flags, arguments), the rest oclif's", () => {
    const command = {
      id: 'audit',
      aliases: [],
      hidden: false,
      hiddenAliases: [],
      summary: 'Audit (docs/output.md).',
      description: 'See docs/output.md and docs/permissions.md.',
      examples: ['<%= config.bin %> audit # docs/output.md', {command: 'audit --json', description: 'shape: docs/output.md'}],
      flags: {json: {name: 'json', type: 'boolean', description: 'as docs/output.md says', allowNo: false}},
      args: {group: {name: 'group', description: 'a group (docs/output.md)'}},
    } as unknown as Command.Cached
    const out = withDocPaths(command, installed)
    expect(out.summary).toBe('Audit (/opt/rd/docs/output.md).')
    expect(out.description).toBe('See /opt/rd/docs/output.md and /opt/rd/docs/permissions.md.')
    expect(out.examples).toEqual(['<%= config.bin %> audit # /opt/rd/docs/output.md', {command: 'audit --json', description: 'shape: /opt/rd/docs/output.md'}])
    expect(out.flags.json).toMatchObject({name: 'json', type: 'boolean', allowNo: false, description: 'as /opt/rd/docs/output.md says'})
    expect(out.args.group).toMatchObject({name: 'group', description: 'a group (/opt/rd/docs/output.md)'})
    expect(command.description).toBe('See docs/output.md and docs/permissions.md.')
  })
})
