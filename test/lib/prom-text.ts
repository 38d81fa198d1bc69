/** The samples of a Prometheus text exposition file: metric name, labels (escapes undone) and value. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)",?/gy
    const body = m[2] ?? ''
    let l: RegExpExecArray | null
    let end = 0
    while ((l = re.exec(body))) {
      labels[l[1]] = l[2].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c))
      end = re.lastIndex
    }
    if (end !== body.length) throw new Error(`bad labels: ${line}`)
    out.push({name: m[1], labels, value: Number(m[3])})
  }
  return out
}

/** name{k="v",…} with the labels sorted: the identity node_exporter checks for duplicates across files. */
export function seriesKey(s: Sample): string {
  return `${s.name}{${Object.keys(s.labels)
    .sort()
    .map(k => `${k}=${JSON.stringify(s.labels[k])}`)
    .join(',')}}`
}
