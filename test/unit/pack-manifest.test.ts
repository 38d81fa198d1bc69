/**
 * The packed package.json has no `prepare` (npm 11 warned "install scripts not yet covered by allowScripts:
 * rebalance-doctor (prepare: npm run build)" on `npm install -g ./rebalance-doctor-*.tgz`): prepack strips it,
 * postpack puts the file back byte for byte.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync, existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from './helpers.js'

const script = join(ROOT, 'scripts/pack-manifest.js')
const pack = (action: string, dir: string) => spawnSync(process.execPath, [script, action, dir], {encoding: 'utf8', timeout: 60_000})

describe('pack manifest', () => {
  it('package.json wires strip into prepack (after the build) and restore into postpack', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.scripts.prepack).toMatch(/npm run build && node scripts\/pack-manifest\.js strip$/)
    expect(pkg.scripts.postpack).toBe('node scripts/pack-manifest.js restore')
    expect(pkg.scripts.prepare).toBe('npm run build')
  })

  it('strip drops prepare only; restore gives the file back byte for byte; a leftover backup stops a second strip', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-pack-'))
    const original = readFileSync(join(ROOT, 'package.json'), 'utf8')
    writeFileSync(join(dir, 'package.json'), original)
    expect(pack('strip', dir).status).toBe(0)
    const stripped = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    expect(stripped.scripts.prepare).toBeUndefined()
    expect({...stripped, scripts: {...stripped.scripts, prepare: 'npm run build'}}).toEqual(JSON.parse(original))
    expect(pack('strip', dir).status).not.toBe(0)
    expect(pack('restore', dir).status).toBe(0)
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(original)
    expect(existsSync(join(dir, '.package.json.prepack'))).toBe(false)
  })
})
