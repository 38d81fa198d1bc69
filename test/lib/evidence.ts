/** Evidence sources for explain tests: a metadata log view with a minimal source, a history of moments. */
import type {ExplainReport} from '../../src/core/explain/explain.js'
import type {MetadataLogSource} from '../../src/core/explain/evidence/recorded.js'
import {type HistoryView, type RecordedHistory, recordedHistory} from '../../src/core/history/view.js'
import type {MetadataLogView} from '../../src/core/metadata-log/attribute.js'

/** A metadata log read as the pipeline takes it: the view, and a source describing a log read whole. */
export function logEvidence(view: MetadataLogView): {view: MetadataLogView; source: MetadataLogSource} {
  return {
    view,
    source: {
      dir: '/log',
      snapshot: null,
      historyStart: {offset: '0', time: null},
      lastOffset: null,
      lastTime: null,
      segments: 1,
      records: 0,
      skippedRecords: {},
      abortedTransactionRecords: 0,
      decodeErrors: [],
      partialTailBytes: 0,
      partialTail: null,
      damage: null,
    },
  }
}

export const history = (view: HistoryView): RecordedHistory => recordedHistory(view)

/** How many causes of the report's timeline a recorded source settled exactly. */
export function exactFrom(report: ExplainReport, source: 'history' | 'metadata-log'): number {
  return report.timeline
    .flatMap(e => e.causes)
    .filter(
      c =>
        c.confidence === 'exact' &&
        (source === 'metadata-log'
          ? c.details.source === 'metadata-log'
          : c.details.source !== 'metadata-log' && (c.details.history ?? c.details.classicHistory)),
    ).length
}
