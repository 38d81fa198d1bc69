/**
 * Headless Chromium (Debian's `chromium`, installed by .ci/run) for the `group explain --html` checks: a page opened
 * from a file, its screenshot read back as pixels, and the requests made on its behalf (Chromium's net log: a
 * request made for a file:// page carries a file:// network isolation key).
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {inflateSync} from 'node:zlib'
import {expect} from 'vitest'

export const CHROMIUM = '/usr/bin/chromium'
/** False where the browser is not installed: the callers skip, saying so (skipMessage). */
export const HAVE_CHROMIUM = existsSync(CHROMIUM)
export const skipMessage = (who: string) =>
  `${who}: ${CHROMIUM} not found (Debian's chromium package, installed by .ci/run as root): the headless browser checks are skipped`

/** A directory for profiles, screenshots and net logs; remove it with rmSync when done. */
export function chromiumDir(): {dir: string; remove: () => void} {
  const dir = mkdtempSync(join(tmpdir(), 'rd-chromium-'))
  return {dir, remove: () => rmSync(dir, {recursive: true, force: true})}
}

/** Headless, isolated, and without Chromium's own background requests (updates, sync, accounts) in the net log. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--hide-scrollbars',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--disable-default-apps',
]

/** Runs Chromium on the page (a file path) with `args`; its stdout (e.g. --dump-dom). */
export function chromium(dir: string, args: string[], page: string): string {
  const r = spawnSync(CHROMIUM, [...FLAGS, `--user-data-dir=${mkdtempSync(join(dir, 'profile-'))}`, ...args, `file://${page}`], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  })
  if (r.error) throw r.error
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

/** Requests made on behalf of a file:// page (net log events whose network isolation key is file://). */
export function pageRequests(netLog: string): string[] {
  const log = JSON.parse(readFileSync(netLog, 'utf8')) as {events: Array<{params?: {url?: string; network_isolation_key?: string}}>}
  return log.events.filter(e => e.params?.network_isolation_key?.includes('file://')).map(e => e.params?.url ?? '(no url)')
}

export interface Image {
  width: number
  height: number
  /** RGB of (x, y). */
  rgb: (x: number, y: number) => [number, number, number]
}

/** A PNG read with node:zlib: 8-bit RGB or RGBA, non-interlaced (what Chromium writes), each row unfiltered. */
export function readPng(file: string): Image {
  const png = readFileSync(file)
  const [width, height, depth, color] = [png.readUInt32BE(16), png.readUInt32BE(20), png[24], png[25]]
  expect([depth, png[28]]).toEqual([8, 0])
  const bpp = color === 6 ? 4 : 3
  const idat: Buffer[] = []
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at)
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len))
    at += len + 12
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * bpp
  const px = Buffer.alloc(height * stride)
  for (let y = 0; y < height; y++) unfilter(raw, px, y, stride, bpp)
  return {width, height, rgb: (x, y) => [px[y * stride + x * bpp], px[y * stride + x * bpp + 1], px[y * stride + x * bpp + 2]]}
}

function unfilter(raw: Buffer, px: Buffer, y: number, stride: number, bpp: number): void {
  const filter = raw[y * (stride + 1)]
  const src = y * (stride + 1) + 1
  for (let i = 0; i < stride; i++) {
    const a = i >= bpp ? px[y * stride + i - bpp] : 0
    const b = y > 0 ? px[(y - 1) * stride + i] : 0
    const c = i >= bpp && y > 0 ? px[(y - 1) * stride + i - bpp] : 0
    const p = a + b - c
    const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c
    const add = [0, a, b, (a + b) >> 1, paeth][filter]
    px[y * stride + i] = (raw[src + i] + add) & 0xff
  }
}

/** Bands of rows (top to bottom) where a run of at least `min` pixels is the lanes' blue. */
export function blueBands(img: Image, min: number): number[][] {
  const blue = ([r, g, b]: number[]) => b > 150 && b - r > 60 && b - g > 30
  const rows: number[] = []
  for (let y = 0; y < img.height; y++) {
    let n = 0
    for (let x = 0; x < img.width; x++) if (blue(img.rgb(x, y))) n++
    if (n >= min) rows.push(y)
  }
  const bands: number[][] = []
  for (const y of rows) {
    const last = bands.at(-1)
    if (last && y - last.at(-1)! <= 1) last.push(y)
    else bands.push([y])
  }
  return bands
}
