/** A spinner on stderr, only on a terminal and never under --json (ora is loaded only then). Text is terminal-safe. */
import {forTerminalLine} from './terminal.js'
export interface Progress {
  update(text: string): void
  stop(): void
}

const silent: Progress = {update() {}, stop() {}}

export async function startProgress(text: string, enabled: boolean): Promise<Progress> {
  if (!enabled || !process.stderr.isTTY) return silent
  const {default: ora} = await import('ora')
  const spinner = ora({text: forTerminalLine(text), stream: process.stderr}).start()
  // Repainting on every update costs more than the work between updates: at most every 100 ms, and the latest
  // text is painted when the interval ends, so a new step ("reading live metadata") is never lost.
  let last = 0
  let latest = text
  let timer: NodeJS.Timeout | undefined
  const paint = () => {
    timer = undefined
    last = Date.now()
    spinner.text = forTerminalLine(latest)
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
