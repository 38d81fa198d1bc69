import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers.js'

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

describe('exit codes in the README and in docs/output.md', () => {
  it('the README names every exit code of docs/output.md’s table, and no other', () => {
    const table = [...read('docs/output.md').matchAll(/^\| (\d+) +\|/gm)].map(m => Number(m[1]))
    expect(table).toEqual([0, 1, 2, 3, 4, 5, 127])
    const readme = read('README.md')
    const sentence = /Exit codes[^:]*:([\s\S]*?)\n\n/.exec(readme)?.[1] ?? ''
    const listed = [...sentence.matchAll(/(?:^|[\s,:])(\d+) (?=[a-z`])/g)].map(m => Number(m[1]))
    expect(listed).toEqual(table)
  })
})
