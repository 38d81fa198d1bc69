/**
 * Hints name the documents they point to as `docs/NAME.md`, a path in the repository. The package ships docs/, so an
 * installed user gets the path where the document is on this machine instead (a document that is not there keeps its
 * repository path).
 */
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

/** The package root: this file is src/cli/ in the repository and dist/cli/ in the package. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url))

export function withInstalledDocs(text: string, root = PACKAGE_ROOT): string {
  return text.replace(/\bdocs\/[\w-]+\.md\b/g, path => (existsSync(root + path) ? root + path : path))
}
