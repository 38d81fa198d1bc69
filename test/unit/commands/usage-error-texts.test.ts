/** Usage errors: one line naming what is wrong, a hint, exit 2 and a documented code; never oclif's usage dump. */
import {describe, expect, it} from 'vitest'
import {run} from '../helpers.js'

describe('usage errors are one line and a hint', () => {
  it.each([
    [['audit', '--group', 'x', '--incremental', '-b', 'h:1'], 'FLAG_CONFLICT', '--group cannot be used with --incremental'],
    [['audit', '--all', '--quiet', '-b', 'h:1'], 'FLAG_CONFLICT', '--all cannot be used with --quiet'],
    [['group:explain', 'g', '--last', '1', '--watch', '10s', '-b', 'h:1'], 'FLAG_CONFLICT', '--last cannot be used with --watch'],
    [['group:records'], 'MISSING_ARGUMENT', 'missing GROUP: rebalance-doctor group records GROUP'],
    [['group:list', '--bogus', '-b', 'h:1'], 'UNKNOWN_FLAG', 'unknown flag --bogus for rebalance-doctor group list'],
    [['group:list', '-o', 'xml', '-b', 'h:1'], 'BAD_FLAG_VALUE', '--output xml is not one of: table, json, yaml'],
    [['group:list', '--timeout'], 'BAD_INPUT', 'Flag --timeout expects a value'],
  ])('%j: %s, "%s"', async (args, code, message) => {
    const r = await run(args)
    expect(r.exitCode).toBe(2)
    expect(r.error).toMatchObject({code, message})
    expect(r.error?.message).not.toMatch(/\n|object Object|=true|--type|See more help/)
    expect((r.error as {suggestions?: string[]}).suggestions?.join(' ')).toMatch(/^See `rebalance-doctor [a-z ]+ --help`\.$/)
    expect(`${r.stdout}${r.stderr}`).not.toContain('USAGE')
  })

  it('an unknown flag near a known one names it', async () => {
    const r = await run(['group:list', '--typ', 'consumer', '-b', 'h:1'])
    expect((r.error as {suggestions?: string[]}).suggestions?.[0]).toMatch(/^Did you mean --type\? See /)
  })

  it('the --json error document carries the code, never "ERROR"', async () => {
    for (const args of [
      ['audit', '--group', 'x', '--incremental', '-b', 'h:1', '--json'],
      ['group:list', '--json', '--timeout'],
    ]) {
      const r = await run(args)
      const code = JSON.parse(r.stdout).error.code
      expect(['FLAG_CONFLICT', 'BAD_INPUT']).toContain(code)
    }
  })

  it('group explain --metadata-log of a missing directory fails before connecting', async () => {
    let opened = 0
    const r = await run(['group:explain', 'g', '-b', 'h:1', '--metadata-log', '/nonexistent/rd-no-such-log'], async () => {
      opened++
      throw new Error('connected')
    })
    expect(r.exitCode).toBe(2)
    expect(r.error).toMatchObject({code: 'NO_METADATA_LOG'})
    expect(opened).toBe(0)
  })
})
