/**
 * A broker-side subscription regex evaluated against a topic name that does not exist yet, as the group
 * coordinator resolves it: RE2/J's `Pattern.compile(regex)` (no flags) and `matcher(topic).matches()` (the whole
 * name). Checked in the bytecode of Kafka 4.1.2 (GroupMetadataManager, re2j 1.8) and 4.4.0 (TopicRegexResolver).
 * re2js is RE2/J's JavaScript port: the same syntax (inline flags, \Q...\E, \p{..}, [[:alpha:]] included; no
 * look-around, no back-references) and linear time, so every regex the broker accepts is evaluated.
 */
import {RE2JS} from 're2js'

export type RegexVerdict = {readonly matches: boolean} | {readonly unknown: string}

const cache = new Map<string, RE2JS | string>()

function compile(regex: string): RE2JS | string {
  let c = cache.get(regex)
  if (c !== undefined) return c
  try {
    c = RE2JS.compile(regex)
  } catch (error) {
    // The broker refuses it too (INVALID_REGULAR_EXPRESSION): it can never be resolved.
    c = `RE2/J does not accept it (${(error as Error).message})`
  }
  if (cache.size < 10_000) cache.set(regex, c)
  return c
}

/** Does the RE2/J regex match the whole topic name, or why we cannot say. */
export function re2jMatches(regex: string, topic: string): RegexVerdict {
  const c = compile(regex)
  return typeof c === 'string' ? {unknown: `regex ${JSON.stringify(regex)}: ${c}`} : {matches: c.matches(topic)}
}
