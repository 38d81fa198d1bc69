/**
 * Kafka's own message JSON (the files its jars carry: common/message/*.json in kafka-clients and
 * kafka-group-coordinator, common/metadata/*.json in kafka-metadata) against the schemas the tool decodes with.
 * A schema is compared version by version: at each version both sides know, the fields present, in order for
 * regular fields and by tag for tagged ones, with name, type and nullability, recursively through structs.
 */
import {execFileSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {type FieldSpec, inRange, type MessageSpec, parseVersions, type StructSpec} from '../../../src/core/records/spec.js'

export interface KafkaJson {
  name: string
  validVersions: string
  flexibleVersions: string
  fields: FieldSpec[]
  commonStructs?: StructSpec[]
  apiKey?: number
  type?: string
}

/** Every *.json under `dir` in the jar whose name starts with `prefix` in `libs`, by message name. */
export function jarMessages(libs: string, prefix: string, dir: string): Map<string, KafkaJson> {
  const jar = readdirSync(libs).find(f => f.startsWith(prefix) && f.endsWith('.jar') && !f.includes('-test') && !f.includes('-sources'))
  if (!jar) throw new Error(`no ${prefix}*.jar in ${libs} (run kafka-it/cluster.sh libs)`)
  const path = join(libs, jar)
  const names = execFileSync('unzip', ['-Z1', path], {encoding: 'utf8', maxBuffer: 64 << 20})
    .split('\n')
    .filter(n => n.startsWith(`${dir}/`) && n.endsWith('.json'))
  const out = new Map<string, KafkaJson>()
  for (const n of names) {
    const text = execFileSync('unzip', ['-p', path, n], {encoding: 'utf8', maxBuffer: 16 << 20})
    // Kafka's message JSON has // comment lines (license, notes)
    const json = JSON.parse(
      text
        .split('\n')
        .filter(l => !/^\s*\/\//.test(l))
        .join('\n'),
    ) as KafkaJson
    out.set(json.name, json)
  }
  return out
}

const PRIMITIVES = new Set(['int8', 'int16', 'int32', 'int64', 'uint16', 'uint32', 'float64', 'bool', 'string', 'bytes', 'records', 'uuid'])

interface Layout {
  name: string
  type: string
  nullable: boolean
  tag: number | undefined
  fields?: Layout[]
}

function layoutAt(fields: readonly FieldSpec[], structs: ReadonlyMap<string, readonly FieldSpec[]>, v: number): Layout[] {
  const out: Layout[] = []
  for (const f of fields) {
    if (!inRange(parseVersions(f.versions ?? '0+'), v)) continue
    const tagged = f.taggedVersions !== undefined && inRange(parseVersions(f.taggedVersions), v)
    const base = f.type.startsWith('[]') ? f.type.slice(2) : f.type
    const prim = PRIMITIVES.has(base)
    const sub = prim ? undefined : (f.fields ?? structs.get(base))
    out.push({
      name: f.name,
      // struct names are ours to choose where Kafka inlines them: compare shapes, not names
      type: prim ? f.type : f.type.startsWith('[]') ? '[]struct' : 'struct',
      nullable: f.nullableVersions !== undefined && inRange(parseVersions(f.nullableVersions), v),
      // (Kafka's JSON writes some tags as strings: "tag": "0")
      tag: tagged ? Number(f.tag) : undefined,
      fields: sub ? layoutAt(sub, structs, v) : undefined,
    })
  }
  return out
}

const structsOf = (m: Pick<MessageSpec, 'commonStructs'>) => new Map((m.commonStructs ?? []).map(s => [s.name, s.fields]))

export interface CompareOptions {
  /** Kafka's tagged fields the tool may leave out (requests it never sets them in, responses it skips them in). */
  allowMissingTagged?: boolean
}

/** Differences at version v between ours and Kafka's, as "path: what" lines. */
function diffLayout(ours: Layout[], theirs: Layout[], path: string, o: CompareOptions): string[] {
  const out: string[] = []
  const regular = (l: Layout[]) => l.filter(f => f.tag === undefined)
  const a = regular(ours)
  const b = regular(theirs)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i]
    const y = b[i]
    if (!x) out.push(`${path}${y.name}: Kafka has this field (${y.type}), the tool does not`)
    else if (!y) out.push(`${path}${x.name}: the tool reads this field, Kafka has no such field here`)
    else out.push(...diffField(x, y, path, o))
  }
  const byTag = (l: Layout[]) => new Map(l.filter(f => f.tag !== undefined).map(f => [f.tag!, f]))
  const ta = byTag(ours)
  const tb = byTag(theirs)
  for (const [tag, y] of tb) {
    const x = ta.get(tag)
    if (!x) {
      if (!o.allowMissingTagged) out.push(`${path}${y.name}: Kafka has this tagged field (tag ${tag}, ${y.type}), the tool does not`)
    } else out.push(...diffField(x, y, path, o))
  }
  for (const [tag, x] of ta) if (!tb.has(tag)) out.push(`${path}${x.name}: the tool has tagged field ${tag}, Kafka does not`)
  return out
}

function diffField(x: Layout, y: Layout, path: string, o: CompareOptions): string[] {
  const at = `${path}${y.name}`
  if (x.name !== y.name) return [`${at}: named ${x.name} by the tool`]
  const out: string[] = []
  if (x.type !== y.type) out.push(`${at}: type ${x.type} (tool) vs ${y.type} (Kafka)`)
  if (x.nullable !== y.nullable) out.push(`${at}: nullable ${x.nullable} (tool) vs ${y.nullable} (Kafka)`)
  if (x.fields && y.fields) out.push(...diffLayout(x.fields, y.fields, `${at}.`, o))
  return out
}

/**
 * Ours against Kafka's at every version both declare valid (ours: validVersions; `ourVersions` overrides it, e.g.
 * keys whose version is the record type in old files). Tagged fields of ours that this Kafka version does not have
 * are allowed when the field says it came later (`since` newer than `kafkaVersion`).
 */
export function compareMessage(ours: MessageSpec, theirs: KafkaJson, kafkaVersion: string, o: CompareOptions = {}): {versions: number[]; problems: string[]} {
  const mine = parseVersions(ours.validVersions)
  const kafka = parseVersions(theirs.validVersions)
  const versions: number[] = []
  for (let v = Math.max(mine.min, kafka.min); v <= Math.min(mine.max === Infinity ? 64 : mine.max, kafka.max === Infinity ? 64 : kafka.max); v++)
    versions.push(v)
  const later = (f: FieldSpec) => f.since !== undefined && compareReleases(f.since, kafkaVersion) > 0
  const problems: string[] = []
  for (const v of versions) {
    const flexMine = inRange(parseVersions(ours.flexibleVersions), v)
    const flexKafka = inRange(parseVersions(theirs.flexibleVersions), v)
    if (flexMine !== flexKafka) problems.push(`v${v}: flexible ${flexMine} (tool) vs ${flexKafka} (Kafka)`)
    const strip = (fields: readonly FieldSpec[]): FieldSpec[] =>
      fields.filter(f => !(later(f) && f.taggedVersions !== undefined)).map(f => (f.fields ? {...f, fields: strip(f.fields)} : f))
    const structs = new Map([...structsOf(ours)].map(([k, fs]) => [k, strip(fs)]))
    const a = layoutAt(strip(ours.fields), structs, v)
    const b = layoutAt(theirs.fields, structsOf(theirs), v)
    problems.push(...diffLayout(a, b, '', o).map(p => `v${v} ${p}`))
  }
  return {versions, problems}
}

/** "4.1" vs "4.0.2": compares the release numbers present in both (4.1 > 4.0.2; 4.0 = 4.0.2). */
export function compareReleases(a: string, b: string): number {
  const x = a.split('.').map(Number)
  const y = b.split('.').map(Number)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i]
  return 0
}
