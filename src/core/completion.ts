/**
 * Shell completion, decided here for every shell (the way cobra's `__complete` does for kubectl): the shell script
 * passes the words typed so far, the last one being the word under the cursor, and gets back what may follow. Live
 * group and topic names are asked for (`dynamic`) and read by the caller; file names are left to the shell.
 */

export interface CompletionFlag {
  name: string
  char?: string
  takesValue: boolean
  /** Fixed values (oclif `options`). */
  options?: readonly string[]
  /** FILE, DIR, TOPIC, … (oclif `helpValue`): which values to offer. */
  helpValue?: string
}

export interface CompletionCommand {
  /** The command's words ("group", "explain"). */
  words: readonly string[]
  flags: readonly CompletionFlag[]
  /** Argument names in order ("group", "topic"); the last repeats when `variadic`. */
  args: readonly string[]
  /** Fixed values of each argument (oclif `options`), where it has them. */
  argOptions?: ReadonlyArray<readonly string[] | undefined>
  variadic: boolean
}

export type Completion =
  | {kind: 'values'; values: string[]}
  /**
   * Live names from the cluster, offered with `prefix` before each (a `--topic=` typed in the same word). `dashSafe`:
   * after `--`, where a name starting with `-` is read as a name, not as a flag (as it is after a prefix).
   */
  | {kind: 'dynamic'; what: 'groups' | 'topics'; prefix: string; typed: string; dashSafe?: boolean}
  | {kind: 'files'}

const startsWith = (a: readonly string[], b: readonly string[]) => b.every((w, i) => a[i] === w)

/** What may stand at the last word of `words` (the words after the program name). */
export function complete(commands: readonly CompletionCommand[], words: readonly string[]): Completion {
  const cur = words.at(-1) ?? ''
  const before = words.slice(0, -1)
  // the command: the leading words that name one (or a topic of several)
  const path: string[] = []
  let i = 0
  while (i < before.length && !before[i].startsWith('-') && commands.some(c => startsWith(c.words, [...path, before[i]]))) path.push(before[i++])
  const cmd = commands.find(c => c.words.length === path.length && startsWith(c.words, path))
  const deeper = commands.filter(c => c.words.length > path.length && startsWith(c.words, path))
  if (!cmd) {
    if (cur.startsWith('-') || i < before.length) return {kind: 'values', values: []}
    return {kind: 'values', values: [...new Set(deeper.map(c => c.words[path.length]))].filter(w => w.startsWith(cur)).sort()}
  }
  const byToken = new Map<string, CompletionFlag>()
  for (const f of [...cmd.flags, {name: 'help', takesValue: false}]) {
    byToken.set(`--${f.name}`, f)
    if ('char' in f && f.char) byToken.set(`-${f.char}`, f)
  }
  let args = 0
  let rest = false
  for (let j = i; j < before.length; j++) {
    const w = before[j]
    if (rest || !w.startsWith('-') || w === '-') args++
    else if (w === '--') rest = true
    else if (!w.includes('=') && byToken.get(w)?.takesValue) j++
  }
  const prev = before.length > i ? before.at(-1)! : undefined
  const prevFlag = prev && !prev.includes('=') && !rest ? byToken.get(prev) : undefined
  if (prevFlag?.takesValue) return valuesOf(prevFlag, '', cur)
  if (!rest && cur.startsWith('--') && cur.includes('=')) {
    const at = cur.indexOf('=')
    const f = byToken.get(cur.slice(0, at))
    return f?.takesValue ? valuesOf(f, cur.slice(0, at + 1), cur.slice(at + 1)) : {kind: 'values', values: []}
  }
  if (!rest && cur.startsWith('-')) {
    return {kind: 'values', values: [...cmd.flags.map(f => `--${f.name}`), '--help'].filter(f => f.startsWith(cur)).sort()}
  }
  const index = args < cmd.args.length ? args : cmd.variadic ? cmd.args.length - 1 : -1
  const arg = cmd.args[index]
  const options = cmd.argOptions?.[index]
  if (options?.length) return {kind: 'values', values: options.filter(o => o.startsWith(cur))}
  const what = arg === 'group' ? 'groups' : arg === 'topic' ? 'topics' : undefined
  return what ? {kind: 'dynamic', what, prefix: '', typed: cur, ...(rest ? {dashSafe: true} : {})} : {kind: 'values', values: []}
}

/**
 * Comma-list flags by their help value (--fail-on KINDS, --type TYPES): the values of the element being typed, after
 * those already given; the words that stand alone (all, none) only as the first.
 */
export const LIST_VALUES: Readonly<Record<string, {values: readonly string[]; alone: readonly string[]}>> = {
  // (FINDING_KINDS and GROUP_TYPES written out: their modules would load the hasher and the explainer on every TAB;
  // a test checks they are the same)
  KINDS: {values: ['all', 'none', 'drift', 'pending', 'stuck', 'missing-topics', 'unknown-records', 'reassignment'], alone: ['all', 'none']},
  TYPES: {values: ['consumer', 'share', 'streams', 'classic'], alone: []},
}

function valuesOf(f: CompletionFlag, prefix: string, typed: string): Completion {
  if (f.options?.length) return {kind: 'values', values: f.options.filter(o => o.startsWith(typed)).map(o => prefix + o)}
  const list = LIST_VALUES[f.helpValue ?? '']
  if (list) {
    const head = typed.slice(0, typed.lastIndexOf(',') + 1)
    const given = head.split(',').filter(Boolean)
    const tail = typed.slice(head.length)
    return {
      kind: 'values',
      values: list.values.filter(v => v.startsWith(tail) && !given.includes(v) && !(head && list.alone.includes(v))).map(v => prefix + head + v),
    }
  }
  if (f.name === 'topic' || f.helpValue === 'TOPIC') return {kind: 'dynamic', what: 'topics', prefix, typed}
  if (f.name === 'group') return {kind: 'dynamic', what: 'groups', prefix, typed}
  if (/^(FILE|DIR|PATH)$/.test(f.helpValue ?? '')) return {kind: 'files'}
  return {kind: 'values', values: []}
}

/** At most this many live names are offered (a cluster can have many thousands). */
export const MAX_LIVE_NAMES = 1000

/**
 * Live names for the shell: those starting with what was typed, sorted, at most MAX_LIVE_NAMES, and only names a
 * shell can take as one word (no whitespace, quotes, control characters or other shell metacharacters: Kafka
 * allows only [a-zA-Z0-9._-] in topic names, but group ids can hold anything). A name starting with `-`
 * (`--prometheus=x.prom`, `-rf`) is offered only where it cannot parse as a flag: after `--group=` or `--`.
 */
export function liveCandidates(names: Iterable<string>, c: Extract<Completion, {kind: 'dynamic'}>): string[] {
  return [...new Set(names)]
    .filter(n => n.startsWith(c.typed) && /^[\w.:@/+,%=-]+$/u.test(n) && (c.prefix !== '' || c.dashSafe === true || !n.startsWith('-')))
    .sort()
    .slice(0, MAX_LIVE_NAMES)
    .map(n => c.prefix + n)
}
