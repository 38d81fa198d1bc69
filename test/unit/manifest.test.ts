import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from './helpers.js'

/** Command ids from the source tree: src/commands/group/explain.ts → group:explain. */
function commandIds(dir = join(ROOT, 'src', 'commands')): string[] {
  return readdirSync(dir).flatMap(f => {
    const p = join(dir, f)
    if (statSync(p).isDirectory()) return commandIds(p)
    return f.endsWith('.ts')
      ? [
          relative(join(ROOT, 'src', 'commands'), p)
            .replace(/\.ts$/, '')
            .split('/')
            .join(':'),
        ]
      : []
  })
}

describe('generated files follow the commands', () => {
  const ids = commandIds().sort()

  it('oclif.manifest.json lists exactly the commands in src/commands (run `npm run build`)', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
    expect(Object.keys(manifest.commands).sort()).toEqual(ids)
  })

  it('docs/commands.md documents every command (run `npm run readme`)', () => {
    // (the hidden completion-values is documented by hand beside completion)
    const readme = ['commands.md', 'help-and-completion.md'].map(f => readFileSync(join(ROOT, 'docs', f), 'utf8')).join('\n')
    for (const id of ids) expect(readme, id).toContain(`## \`rebalance-doctor ${id.split(':').join(' ')}`)
  })
})
