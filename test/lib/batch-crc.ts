/** Test helper: writes the CRC-32C of every v2 batch in `bytes` (in place, and returns it), as a producer does. */
import {batchCrc} from '../../src/kafka/record-batch.js'

export function sealBatches(bytes: Buffer): Buffer {
  for (let pos = 0; bytes.length - pos >= 61; ) {
    const end = pos + 12 + bytes.readInt32BE(pos + 8)
    if (end > bytes.length || end < pos + 61) break
    bytes.writeUInt32BE(batchCrc(bytes.subarray(pos, end)), pos + 17)
    pos = end
  }
  return bytes
}
