/** `-o json|yaml|table`: -o json is --json, -o yaml the same document as YAML; cluster snapshot -o stays a file. */
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {outputFormatOf} from '../../../src/cli/output-flags.js'
import {run, tempFile, WORKED} from '../helpers.js'

const file = tempFile('worked.json', {...WORKED, topics: [{...WORKED.topics[0], name: 'ord\u202Eers'}, ...WORKED.topics.slice(1)]})

describe('-o FORMAT', () => {
  it('-o json prints the --json document; -o yaml the same document as YAML (terminal-safe, same values)', async () => {
    const json = await run(['topic-hash:compute', '--metadata-file', file, '--json'])
    const o = await run(['topic-hash:compute', '--metadata-file', file, '-o', 'json'])
    expect(o.exitCode).toBe(0)
    expect(o.stdout).toBe(json.stdout)
    const y = await run(['topic-hash:compute', '--metadata-file', file, '--output=yaml'])
    expect(y.exitCode).toBe(0)
    expect(y.stdout).toMatch(/^schema:\n {2}name: "rebalance-doctor\/topic-hash-compute"/)
    expect(y.stdout).not.toContain('\u202E')
    expect(y.stdout).toContain('\\u202e')
    expect(parseYaml(y.stdout)).toEqual(JSON.parse(json.stdout))
    const table = await run(['topic-hash:compute', '--metadata-file', file, '-o', 'table'])
    expect(table.stdout).not.toMatch(/^\{/)
    expect(table.stdout).toContain('ord')
  })

  it('errors follow the format too: -o yaml prints the error document as YAML', async () => {
    const r = await run(['topic-hash:compute', '--metadata-file', '/nonexistent/x.json', '-oyaml'])
    expect(r.exitCode).toBe(2)
    expect(parseYaml(r.stdout)).toMatchObject({schema: {name: 'rebalance-doctor/error'}, error: {exitCode: 2}})
  })

  it('usage errors: an unknown format (wide is not offered: no command has extra columns), -o with --json or --ndjson', async () => {
    expect((await run(['topic-hash:compute', '--metadata-file', file, '-o', 'wide'])).exitCode).toBe(2)
    expect((await run(['topic-hash:compute', '--metadata-file', file, '-o', 'json', '--json'])).exitCode).toBe(2)
    expect((await run(['audit', '-b', '127.0.0.1:1', '-o', 'yaml', '--ndjson'])).exitCode).toBe(2)
  })

  it('the format is read from the raw arguments (oclif asks before parsing), up to --', () => {
    expect(outputFormatOf(['-o', 'yaml'])).toBe('yaml')
    expect(outputFormatOf(['-ojson'])).toBe('json')
    expect(outputFormatOf(['-o=json'])).toBe('json')
    expect(outputFormatOf(['--output', 'table'])).toBe('table')
    expect(outputFormatOf(['--output=yaml', 'g'])).toBe('yaml')
    expect(outputFormatOf(['--', '-o', 'json'])).toBeUndefined()
    expect(outputFormatOf(['-o', 'file.json'])).toBeUndefined()
    expect(outputFormatOf(['--other', 'x'])).toBeUndefined()
  })
})
