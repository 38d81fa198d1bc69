/**
 * @slow
 * The README's install works from the package: `npm pack` makes the tarball (of a copy of the package's files, so
 * the checkout's package.json is never stripped under the other tests' feet), `npm install -g --prefix` puts it into
 * an empty prefix with npm's cache only (--offline: `npm ci` filled the cache, so no network), and the installed bin
 * answers an offline command, the hash the source computes. A hint naming docs/… gives the installed document's
 * path, which exists.
 */
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it, onTestFinished} from 'vitest'
import {computeTopicHash, RackTable} from '../../src/core/hash.js'
import {parseMetadataDocument} from '../../src/core/metadata.js'
import {ROOT} from './helpers.js'

const METADATA = {
  brokers: [{id: 1, rack: 'rack-a'}],
  topics: [{name: 'orders', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: [{partition: 0, replicas: [1]}]}],
}

/** npm, with a timeout: vitest cannot end a worker blocked in spawnSync. */
function npm(args: string[], cwd: string) {
  const r = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {cwd, encoding: 'utf8', timeout: 240_000})
  expect(r.status, `npm ${args[0]}: ${r.error ?? ''}${r.stderr}`).toBe(0)
  return r
}

/** The packed tarball of the package's files (package.json `files`, with prepack's strip as npm pack runs it). */
function pack(tmp: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const copy = join(tmp, 'package')
  mkdirSync(copy)
  for (const f of [...pkg.files, 'package.json', 'README.md', 'scripts/pack-manifest.js']) {
    if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(copy, f), {recursive: true})
  }
  const strip = spawnSync(process.execPath, [join(copy, 'scripts/pack-manifest.js'), 'strip', copy], {encoding: 'utf8', timeout: 60_000})
  expect(strip.status, strip.stderr).toBe(0)
  // the build is the checkout's dist/ (the slow project's setup compiles it when src/ is newer)
  npm(['pack', '--ignore-scripts', '--pack-destination', tmp], copy)
  const tarball = readdirSync(tmp).find(f => f.endsWith('.tgz'))
  expect(tarball).toBeDefined()
  return join(tmp, tarball ?? '')
}

describe('install from the packed package', () => {
  it('npm install -g of the tarball into an empty prefix, offline; the bin computes the hash; hints name installed docs', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rd-install-'))
    onTestFinished(() => rmSync(tmp, {recursive: true, force: true}))
    const tarball = pack(tmp)
    const prefix = join(tmp, 'prefix')
    npm(['install', '-g', '--offline', '--prefix', prefix, tarball], tmp)
    const bin = join(prefix, 'bin', 'rebalance-doctor')
    const file = join(tmp, 'cluster.json')
    writeFileSync(file, JSON.stringify(METADATA))
    const r = spawnSync(bin, ['topic-hash', 'compute', 'orders', '-f', file, '--json'], {cwd: tmp, encoding: 'utf8', timeout: 60_000})
    expect(r.status, r.stderr).toBe(0)
    const md = parseMetadataDocument(METADATA)
    const expected = computeTopicHash(md.topics[0], new RackTable(md.brokers)).toString()
    expect(JSON.parse(r.stdout).topics[0].hash).toBe(expected)

    writeFileSync(file, '{}')
    const bad = spawnSync(bin, ['topic-hash', 'compute', '-f', file, '--json'], {cwd: tmp, encoding: 'utf8', timeout: 60_000})
    expect(bad.status).toBe(2)
    const hint: string = JSON.parse(bad.stdout).error.hint
    const doc = join(prefix, 'lib', 'node_modules', 'rebalance-doctor', 'docs', 'hash-and-metadata-file.md')
    expect(hint).toContain(`See ${doc};`)
    expect(readFileSync(doc, 'utf8')).toMatch(/^# /)

    // help texts too: every docs path the help prints is a document of the installed package
    const help = spawnSync(bin, ['audit', '--help'], {cwd: tmp, encoding: 'utf8', timeout: 60_000, env: {...process.env, COLUMNS: '200'}})
    expect(help.status, help.stderr).toBe(0)
    const paths = [...help.stdout.matchAll(/(\S*docs\/[\w-]+\.md)/g)].map(m => m[1])
    expect(paths.length).toBeGreaterThan(0)
    for (const p of paths) expect(p, p).toBe(join(prefix, 'lib', 'node_modules', 'rebalance-doctor', 'docs', 'output.md'))
  })
})
