/**
 * A broker-side subscription regex (RE2/J, whole-name match) evaluated against a topic name that does not exist
 * yet. JavaScript's RegExp agrees with RE2/J on the common syntax (literals, classes, . * + ? {m,n} | ( ) (?: ) ^ $
 * \d \w \s \b) for the characters a topic name can hold (ASCII letters, digits, . _ -). Where the two differ we
 * refuse rather than guess: RE2/J's inline flags and named groups ((?i) (?P<n>...)), \Q...\E quoting, \pN / \p{..}
 * Unicode classes, POSIX classes [[:alpha:]], \A \z \C; and JavaScript-only syntax RE2/J rejects (look-around,
 * back-references), which a resolved regex cannot contain anyway.
 */
export type RegexVerdict = {readonly matches: boolean} | {readonly unknown: string}

const DIFFERS: ReadonlyArray<[RegExp, string]> = [
  [/\(\?(?!:)/, 'inline flags, named groups or look-around ((?...)) are read differently by RE2/J and JavaScript'],
  [/\\[QE]/, '\\Q...\\E quoting is RE2/J-only'],
  [/\\[pP]/, 'Unicode classes (\\p, \\P) differ between RE2/J and JavaScript'],
  [/\[:[a-z]+:\]/, 'POSIX classes ([[:alpha:]]) are RE2/J-only'],
  [/\\[AzCZ]/, '\\A, \\z, \\C are RE2/J-only'],
  [/\\[1-9]/, 'back-references are not RE2/J syntax'],
]

const cache = new Map<string, RegExp | string>()

function compile(regex: string): RegExp | string {
  let c = cache.get(regex)
  if (c !== undefined) return c
  // a backslash escaping a backslash hides what follows from the checks: drop escaped backslashes first
  const plain = regex.replaceAll('\\\\', '')
  const why = DIFFERS.find(([re]) => re.test(plain))
  if (why) c = why[1]
  else {
    try {
      c = new RegExp(`^(?:${regex})$`)
    } catch (error) {
      c = `JavaScript cannot compile it (${(error as Error).message})`
    }
  }
  if (cache.size < 10_000) cache.set(regex, c)
  return c
}

/** Does the RE2/J regex match the whole topic name, or why we cannot say. */
export function re2jMatches(regex: string, topic: string): RegexVerdict {
  const c = compile(regex)
  return typeof c === 'string' ? {unknown: `regex ${JSON.stringify(regex)}: ${c}`} : {matches: c.test(topic)}
}
