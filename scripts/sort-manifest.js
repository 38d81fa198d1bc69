// oclif manifest lists commands in the order its file walk met them, which differs between runs on the same tree:
// sorted by id, a build leaves oclif.manifest.json unchanged unless a command changed.
import {readFileSync, writeFileSync} from 'node:fs'

const file = new URL('../oclif.manifest.json', import.meta.url)
const manifest = JSON.parse(readFileSync(file, 'utf8'))
manifest.commands = Object.fromEntries(Object.entries(manifest.commands).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
