/**
 * --profile: a named cluster from the profiles file; flag > environment > profile, for each setting. Checked
 * through the built CLI's --debug line (the settings it resolved), against a port that refuses at once.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadProfile} from '../../../src/config/profiles.js'

const ROOT = join(import.meta.dirname, '..', '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'rd-profiles-'))
const file = join(dir, 'profiles.yaml')
writeFileSync(
  file,
  'profiles:\n  dev:\n    bootstrap-server: 127.0.0.1:2\n    command-config: dev.properties\n    timeout: 3s\n  ms:\n    bootstrap-server: 127.0.0.1:3\n    timeout: 4000\n',
)
writeFileSync(join(dir, 'dev.properties'), 'client.id=from-dev-profile\n')
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REBALANCE_DOCTOR_') && k !== 'KAFKA_BOOTSTRAP_SERVERS'))

function settings(args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), 'topic-hash', 'compute', 'x', '--debug', ...args], {
    encoding: 'utf8',
    env: {...clean, REBALANCE_DOCTOR_PROFILES_FILE: file, ...env},
    timeout: 30_000,
  })
  const line = r.stderr.split('\n').find(l => l.startsWith('[debug] connection settings:'))
  if (!line) throw new Error(`no settings line (exit ${r.status}): ${r.stderr}`)
  return line
}

describe('profiles', () => {
  it('a profile gives bootstrap, command config (relative to the file) and timeout', () => {
    const line = settings(['--profile', 'dev'])
    expect(line).toContain('bootstrap=127.0.0.1:2')
    expect(line).toContain('client.id=from-dev-profile')
    expect(line).toContain('timeout=3000ms')
    expect(settings([], {REBALANCE_DOCTOR_PROFILE: 'ms'})).toMatch(/bootstrap=127\.0\.0\.1:3 .*timeout=4000ms/)
  })

  it('flag > environment > profile', () => {
    expect(settings(['--profile', 'dev', '-b', '127.0.0.1:9', '--timeout', '5s'])).toMatch(/bootstrap=127\.0\.0\.1:9 .*timeout=5000ms/)
    expect(settings(['--profile', 'dev'], {KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:8', REBALANCE_DOCTOR_TIMEOUT: '6000'})).toMatch(
      /bootstrap=127\.0\.0\.1:8 .*timeout=6000ms/,
    )
    // the flag's profile wins over the environment's
    expect(settings(['--profile', 'ms'], {REBALANCE_DOCTOR_PROFILE: 'dev'})).toContain('bootstrap=127.0.0.1:3')
  })

  it('errors name the profile and the file, never a value', async () => {
    await expect(loadProfile('nope', {env: {REBALANCE_DOCTOR_PROFILES_FILE: file}})).rejects.toThrow(`no profile "nope" in ${file}`)
    const read = (text: string) => () => text
    await expect(
      loadProfile('p', {env: {REBALANCE_DOCTOR_PROFILES_FILE: 'f.yaml'}, readFile: read('profiles:\n  p:\n    sasl.jaas.config: password=SECRET\n')}),
    ).rejects.toThrow(/unknown key "sasl.jaas.config"/)
    const bad = loadProfile('p', {env: {REBALANCE_DOCTOR_PROFILES_FILE: 'f.yaml'}, readFile: read('profiles: [SECRET\n')})
    await expect(bad).rejects.toThrow(/not valid YAML \(BAD_INDENT at line 2, column 1\)/)
    await expect(bad).rejects.not.toThrow(/SECRET/)
    await expect(loadProfile('p', {env: {REBALANCE_DOCTOR_PROFILES_FILE: join(dir, 'missing.yaml')}})).rejects.toThrow(
      /cannot read the profiles file .*missing\.yaml \(ENOENT\)/,
    )
  })

  it('--timeout takes a duration or milliseconds, one syntax', () => {
    expect(settings(['-b', '127.0.0.1:2', '--timeout', '2m'])).toContain('timeout=120000ms')
    expect(settings(['-b', '127.0.0.1:2', '--timeout', '2500'])).toContain('timeout=2500ms')
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'run.js'), 'topic-hash', 'compute', 'x', '-b', '127.0.0.1:2', '--timeout', '30x'], {
      encoding: 'utf8',
      env: clean,
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--timeout "30x" is not a duration')
  })
})
