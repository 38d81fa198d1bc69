/** Reads a metadata file (or stdin for "-") into the cluster metadata model. */
import {readFile} from 'node:fs/promises'
import {InputError} from '../core/errors.js'
import {type ClusterMetadata, parseMetadataJson} from '../core/metadata.js'

export async function readMetadataFile(path: string): Promise<ClusterMetadata> {
  let text: string
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new InputError(`metadata file ${path} does not exist`, 'Check the path, or write one with `rebalance-doctor cluster snapshot --output FILE`.')
    if (code === 'EISDIR') throw new InputError(`metadata file ${path} is a directory`, 'Give the path of a JSON metadata file.')
    if (code === 'EACCES') throw new InputError(`metadata file ${path} cannot be read (permission denied)`)
    throw error
  }
  return parseMetadataJson(text, path === '-' ? 'stdin' : path)
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
