/** A spinner on stderr, only on a terminal and never under --json (ora is loaded only then). */
export interface Progress {
  update(text: string): void
  stop(): void
}

const silent: Progress = {update() {}, stop() {}}

export async function startProgress(text: string, enabled: boolean): Promise<Progress> {
  if (!enabled || !process.stderr.isTTY) return silent
  const {default: ora} = await import('ora')
  const spinner = ora({text, stream: process.stderr}).start()
  let last = 0
  return {
    update(t) {
      const now = Date.now()
      if (now - last < 100) return // repainting costs more than the work between updates
      last = now
      spinner.text = t
    },
    stop() {
      spinner.stop()
    },
  }
}
