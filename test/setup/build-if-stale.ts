/**
 * The slow unit project spawns the built CLI (bin/run.js runs dist/): compile src/ first when any source file is
 * newer than the build, so those tests too exercise the source beside them. `npm ci` builds, so CI compiles nothing here.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')

function newest(dir: string, ext: string): number {
  if (!existsSync(dir)) return 0
  let t = 0
  for (const f of readdirSync(dir, {recursive: true}) as string[]) if (f.endsWith(ext)) t = Math.max(t, statSync(join(dir, f)).mtimeMs)
  return t
}

export default function setup(): void {
  const source = Math.max(newest(join(ROOT, 'src'), '.ts'), statSync(join(ROOT, 'tsconfig.json')).mtimeMs)
  if (source <= newest(join(ROOT, 'dist'), '.js')) return
  process.stderr.write('slow unit tests: src/ is newer than dist/, compiling (tsc)\n')
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {cwd: ROOT, stdio: 'inherit'})
}
