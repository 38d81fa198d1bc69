/**
 * The topics a classic group's consumer-protocol members subscribe to, from the subscription bytes the record codec
 * decoded (ConsumerProtocolSubscription). Other protocol types (e.g. `connect`) keep their own formats: none.
 */
import type * as V from './values.js'

interface Decoded {
  ok?: boolean
  value?: {Topics?: readonly string[]}
}

/** One member's subscribed topics, sorted; empty when its subscription did not decode. */
export function classicMemberTopics(m: V.ClassicMember): string[] {
  const s = m.subscriptionDecoded as Decoded | undefined
  return s?.ok ? [...new Set(s.value?.Topics ?? [])].sort() : []
}

/** Every member's subscribed topics, sorted. */
export function classicSubscribedTopics(v: V.GroupMetadataValue | null | undefined): string[] {
  const out = new Set<string>()
  for (const m of v?.members ?? []) for (const t of classicMemberTopics(m)) out.add(t)
  return [...out].sort()
}
