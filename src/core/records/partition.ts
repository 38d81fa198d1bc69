/**
 * Which `__consumer_offsets` partition holds a group: Kafka's
 * `Utils.abs(groupId.hashCode()) % numPartitions` (GroupCoordinatorService.partitionFor).
 */

/** Java's String.hashCode: h = 31*h + c over UTF-16 code units, int32 wrapping. */
export function javaStringHashCode(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0
  return h
}

/** Kafka's Utils.abs: Integer.MIN_VALUE maps to 0 (Math.abs would overflow in Java). */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n)
}

/**
 * @param numPartitions the real partition count of `__consumer_offsets` (not necessarily the
 *   `offsets.topic.num.partitions` default of 50).
 */
export function partitionForGroup(groupId: string, numPartitions: number): number {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0) throw new RangeError(`numPartitions must be a positive integer, got ${numPartitions}`)
  return kafkaAbs(javaStringHashCode(groupId)) % numPartitions
}
