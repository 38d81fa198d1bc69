/**
 * The --json contract: every command names its document's schema, and every document has `schema` first and
 * `warnings` last; a warning given with this.warn (which oclif drops under --json) reaches the document.
 */
import {readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {Config} from '@oclif/core'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {BaseCommand} from '../../../src/cli/base-command.js'
import {SCHEMAS, toDocument} from '../../../src/core/documents.js'
import {ROOT, run, tempFile, WORKED} from '../helpers.js'

const COMMANDS = join(ROOT, 'src', 'commands')
const files = (dir: string): string[] =>
  readdirSync(dir, {withFileTypes: true}).flatMap(e => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))

class Warns extends BaseCommand<typeof Warns> {
  static override schema = {name: 'rebalance-doctor/test', version: 7}
  static override flags = {}
  async run() {
    this.warn('racks of fenced brokers may be missing')
    this.addWarning('HISTORY_NOT_WRITTEN', 'disk full')
    return {value: 1, warnings: ['not this one'], schema: 'nor this'}
  }
}

class Fails extends BaseCommand<typeof Fails> {
  static override schema = {name: 'rebalance-doctor/test', version: 7}
  static override flags = {}
  async run(): Promise<never> {
    this.warn('before the failure')
    throw new Error('boom')
  }
}

async function stdoutOf(cmd: typeof Warns | typeof Fails, argv: string[]): Promise<string> {
  const config = await Config.load(ROOT)
  const out: string[] = []
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    out.push(String(chunk))
    return true
  })
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
  try {
    // _run: what oclif's Command.run calls (parse, run, catch, finally) on an instance built here
    await (new cmd(argv, config) as unknown as {_run(): Promise<unknown>})._run().catch(() => undefined)
  } finally {
    spy.mockRestore()
    err.mockRestore()
  }
  return out.join('')
}

afterEach(() => {
  process.exitCode = undefined
})

describe('JSON documents', () => {
  it('toDocument: schema first, the body, warnings last (replacing body keys of those names)', () => {
    const d = toDocument(SCHEMAS.groupList, {schema: 'old', groups: [], warnings: ['old']}, ['w'])
    expect(Object.keys(d)).toEqual(['schema', 'groups', 'warnings'])
    expect(d).toEqual({schema: {name: 'rebalance-doctor/group-list', version: 1}, groups: [], warnings: ['w']})
  })

  it('every command names a schema of its own', async () => {
    const names = new Map<string, string>()
    for (const f of files(COMMANDS)) {
      const {default: cmd} = (await import(f)) as {default: typeof BaseCommand}
      const id = relative(COMMANDS, f)
      expect(Object.values(SCHEMAS), id).toContainEqual(cmd.schema)
      expect(names.get(cmd.schema.name), `${id} reuses ${cmd.schema.name}`).toBeUndefined()
      names.set(cmd.schema.name, id)
    }
    expect(names.size).toBe(files(COMMANDS).length)
  })

  it('this.warn under --json lands in warnings, after the result, in order', async () => {
    const doc = JSON.parse(await stdoutOf(Warns, ['--json']))
    expect(Object.keys(doc)).toEqual(['schema', 'value', 'warnings'])
    expect(doc).toEqual({
      schema: {name: 'rebalance-doctor/test', version: 7},
      value: 1,
      warnings: ['racks of fenced brokers may be missing', {code: 'HISTORY_NOT_WRITTEN', message: 'disk full'}],
    })
  })

  it('an error document keeps the warnings given before the failure', async () => {
    const doc = JSON.parse(await stdoutOf(Fails, ['--json']))
    expect(doc).toMatchObject({schema: SCHEMAS.error, error: {code: 'UNEXPECTED', message: 'boom', exitCode: 1}, warnings: ['before the failure']})
    expect(Object.keys(doc)).toEqual(['schema', 'error', 'warnings'])
  })

  it('topic-hash bytes --json: schema first, warnings last', async () => {
    const {stdout, exitCode} = await run(['topic-hash:bytes', 'orders', '-f', tempFile('worked.json', WORKED), '--json'])
    expect(exitCode).toBe(0)
    const keys = Object.keys(JSON.parse(stdout))
    expect([keys[0], keys.at(-1)]).toEqual(['schema', 'warnings'])
    expect(JSON.parse(stdout).schema).toEqual(SCHEMAS.topicHashBytes)
  })
})
