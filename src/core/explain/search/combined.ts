/**
 * Changes made together, tried only when no single change fits: one topic change with one broker change (e.g. a
 * broker change the coordinator's cache hid, then partitions added), two topics' changes (a script that alters
 * several topics within one heartbeat), and several topics created together (a streams topology's internal topics).
 * Every pair that matches is kept. Pure.
 */
import {topicHash} from './hash-patcher.js'
import type {Hypothesis} from './hypothesis-types.js'
import type {SearchState} from './state.js'
import {topicAbsentHypothesis} from './topic-candidates.js'

/** Each broker change with each topic-level change, broker by broker. */
export function topicAndBrokerPairs(st: SearchState): void {
  if (!st.budget.pairsAllowed) return
  for (const b of st.brokerChanges) {
    const {rt, patcher} = st.underBroker(b)
    for (const c of st.pairable) {
      if (!st.budget.pair()) return
      if (patcher.with(c.topic, topicHash(c, rt)) !== st.s.target) continue
      const h = c.h()
      st.matches.push({
        kind: 'combined',
        topic: c.topic,
        broker: b.h.broker,
        then: `${h.then}; ${b.h.then}`,
        now: `${h.now}; ${b.h.now}`,
        description: `${h.description}, and ${b.h.description}`,
        parts: [h, b.h],
      })
    }
  }
}

/** Two topic-level changes to two topics, in the order generated (the topics whose assignment changed come first). */
export function topicPairs(st: SearchState): void {
  if (!st.budget.pairsAllowed) return
  const cs = st.pairable
  const hashes = cs.map(c => topicHash(c, st.rt))
  for (let i = 0; i < cs.length; i++) {
    for (let j = i + 1; j < cs.length; j++) {
      if (cs[j].topic === cs[i].topic) continue
      if (!st.budget.pair()) return
      const [ha, hb] = [hashes[i], hashes[j]]
      // (a patcher sets hashes; "absent" leaves a topic out: set the other one first)
      const group =
        ha !== undefined
          ? st.patcher.derive(new Map([[cs[i].topic, ha]])).with(cs[j].topic, hb)
          : hb !== undefined
            ? st.patcher.derive(new Map([[cs[j].topic, hb]])).with(cs[i].topic, undefined)
            : st.patcher.without([cs[i].topic, cs[j].topic])
      if (group === st.s.target) st.matches.push(bothOf(cs[i].h(), cs[j].h()))
    }
  }
}

function bothOf(x: Hypothesis, y: Hypothesis): Hypothesis {
  return {
    kind: 'combined',
    topic: x.topic,
    then: `${x.then}; ${y.then}`,
    now: `${x.now}; ${y.now}`,
    description: `${x.description}, and ${y.description}`,
    parts: [x, y],
  }
}

/** More than two topics that exist today (`absentTogether`) all created since, as one change. */
export function absentTogetherMatch(st: SearchState): void {
  const together = (st.s.absentTogether ?? []).filter(n => st.byName.has(n))
  if (together.length <= 2 || !st.budget.closing()) return
  if (st.patcher.without(together) !== st.s.target) return
  const parts = together.map(name => topicAbsentHypothesis(name, st.byName.get(name)!))
  st.matches.push({
    kind: 'combined',
    topic: together[0],
    then: parts.map(p => p.then).join('; '),
    now: parts.map(p => p.now).join('; '),
    description: `topics ${together.join(', ')} did not exist then (created since)`,
    parts,
  })
}
