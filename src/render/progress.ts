/**
 * A spinner on stderr, only on a terminal whose width is known and never under --json (ora is loaded only then).
 * A terminal that reports 0 columns (`script`, serial consoles, some CI runners) gets none: ora divides by the
 * width to count the lines to clear, and at 0 it clears forever. Text is terminal-safe and cut to one line, so a
 * repaint is always one line (output grows with time only, at most one short line per frame).
 */
import {colorWanted} from './style.js'
import {forTerminalLine} from './terminal.js'
export interface Progress {
  update(text: string): void
  stop(): void
}

const silent: Progress = {update() {}, stop() {}}

/** Narrower than this, a spinner line is more noise than help. */
export const MIN_PROGRESS_COLUMNS = 20

export function progressColumns(stream: {isTTY?: boolean; columns?: number}): number | undefined {
  const columns = stream.isTTY ? stream.columns : undefined
  return columns !== undefined && Number.isFinite(columns) && columns >= MIN_PROGRESS_COLUMNS ? columns : undefined
}

/** One line of at most `columns - 3` characters (the spinner and a space go first; the last column stays free). */
export function fitLine(text: string, columns: number): string {
  const line = text.replace(/\s*\n\s*/g, ' ')
  const room = columns - 3
  return line.length <= room ? line : `${line.slice(0, room - 1)}…`
}

/** `noColor`: --no-color; NO_COLOR and TERM=dumb uncolour the spinner as they do the output. */
/** Whether the spinner is coloured (ora's cyan): not under --no-color, NO_COLOR or TERM=dumb. */
export function spinnerColor(noColor: boolean, env: NodeJS.ProcessEnv): boolean {
  return colorWanted(noColor, env, {isTTY: true})
}

export async function startProgress(text: string, enabled: boolean, noColor = false, env: NodeJS.ProcessEnv = process.env): Promise<Progress> {
  const columns = progressColumns(process.stderr)
  if (!enabled || columns === undefined) return silent
  const {default: ora} = await import('ora')
  const fit = (t: string) => fitLine(forTerminalLine(t), progressColumns(process.stderr) ?? columns)
  const spinner = ora({text: fit(text), stream: process.stderr, ...(spinnerColor(noColor, env) ? {} : {color: false})}).start()
  // Repainting on every update costs more than the work between updates: at most every 100 ms, and the latest
  // text is painted when the interval ends, so a new step ("reading live metadata") is never lost.
  let last = 0
  let latest = text
  let timer: NodeJS.Timeout | undefined
  const paint = () => {
    timer = undefined
    last = Date.now()
    spinner.text = fit(latest)
  }
  return {
    update(t) {
      latest = t
      if (timer) return
      const wait = 100 - (Date.now() - last)
      if (wait <= 0) paint()
      else timer = setTimeout(paint, wait).unref()
    },
    stop() {
      if (timer) clearTimeout(timer)
      spinner.stop()
    },
  }
}
