#!/usr/bin/env node
// npm pack / publish: the packed package.json without the `prepare` script. prepare builds a clone on `npm ci`; in
// a tarball, which holds dist/ already, it would only make `npm install -g rebalance-doctor-*.tgz` warn about an
// install script it blocks (npm 11: "install scripts not yet covered by allowScripts"), and could not run there
// (no TypeScript). `strip` (prepack) keeps the original next to it; `restore` (postpack) puts it back byte for byte.
import {existsSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

const dir = process.argv[3] ?? process.cwd()
const file = join(dir, 'package.json')
const kept = join(dir, '.package.json.prepack')
const action = process.argv[2]
if (action === 'strip') {
  if (existsSync(kept)) throw new Error(`${kept} exists: an earlier pack did not finish; run \`node scripts/pack-manifest.js restore\` first`)
  const text = readFileSync(file, 'utf8')
  const pkg = JSON.parse(text)
  delete pkg.scripts.prepare
  writeFileSync(kept, text)
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`)
} else if (action === 'restore') {
  if (existsSync(kept)) renameSync(kept, file)
} else {
  process.stderr.write('usage: pack-manifest.js strip|restore [DIR]\n')
  process.exit(2)
}
