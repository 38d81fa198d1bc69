/**
 * Flags for how humans see times and colour (JSON is never affected); the Style they make is src/cli/style-flags.ts
 * (apart: the colour library loads only for the commands that colour).
 */
import * as Flags from '@oclif/core/flags'

export const timeFlags = {
  'local-time': Flags.boolean({summary: "Times in the host's time zone, with its offset (JSON stays UTC).", exclusive: ['relative-time'], helpGroup: 'OUTPUT'}),
  'relative-time': Flags.boolean({summary: 'Times as "3m ago" (JSON stays UTC).', exclusive: ['local-time'], helpGroup: 'OUTPUT'}),
}

export const colorFlags = {
  'no-color': Flags.boolean({summary: 'No colour (none either when NO_COLOR is set or stdout is not a terminal).', helpGroup: 'OUTPUT'}),
}

/**
 * The width to lay text out in: COLUMNS when it is a positive number (as ls, git and psql honour it, also into a
 * pipe), else the terminal's columns, else 0 (not a terminal, or one that reports no width: tables keep their
 * natural width).
 */
export function terminalWidth(stream: {isTTY?: boolean; columns?: number} = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = /^\d+$/.test(env.COLUMNS ?? '') ? Number(env.COLUMNS) : 0
  if (fromEnv > 0) return fromEnv
  const c = stream.isTTY ? stream.columns : undefined
  return c !== undefined && Number.isFinite(c) && c > 0 ? c : 0
}

/**
 * `-o json|yaml|table` (kubectl's and rpk's convention), on the commands whose output is a table or a document:
 * `-o json` is `--json`, `-o yaml` the same document as YAML, `table` the default. (`cluster snapshot -o FILE`
 * keeps its meaning: the file to write.) No command has extra columns for a `wide` form yet, so it is not offered.
 */
export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/** The -o flag; `exclusive`: the command's other output modes (--ndjson, --watch), as --json excludes them. */
export function outputFlags(...exclusive: string[]) {
  return {
    output: Flags.string({
      char: 'o',
      summary: 'Output format: table (default), json (the --json document) or yaml (the same document as YAML).',
      options: [...OUTPUT_FORMATS],
      exclusive: ['json', ...exclusive],
      helpValue: 'FORMAT',
      helpGroup: 'OUTPUT',
    }),
  }
}

/**
 * -o/--output read from the raw arguments: oclif asks jsonEnabled() before the flags are parsed (and in catch,
 * also when parsing failed), so the format cannot wait for them. Undefined when not given or not one of ours.
 */
export function outputFormatOf(argv: readonly string[]): OutputFormat | undefined {
  let value: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--') break
    if (a === '-o' || a === '--output') value = argv[++i]
    else if (a.startsWith('--output=')) value = a.slice('--output='.length)
    else if (/^-o[^-]/.test(a)) value = a.slice(2).replace(/^=/, '')
  }
  return (OUTPUT_FORMATS as readonly string[]).includes(value ?? '') ? (value as OutputFormat) : undefined
}
