/** `cluster metadata-log` for humans: one row per broker, the directory to give --metadata-log. */
import type {MetadataLogNode} from '../core/metadata-log/location.js'
import {renderTable} from './table.js'

export function renderMetadataLogLocations(nodes: readonly MetadataLogNode[], width: number): string {
  return renderTable(
    ['NODE', 'HOST', 'METADATA LOG (--metadata-log)', 'FROM'],
    nodes.map(n => [n.nodeId, `${n.host}:${n.port}`, n.path ?? `- (${n.error ?? 'not in its configs'})`, n.source ?? '-']),
    ['right', 'left', 'left', 'left'],
    {width},
  )
}
