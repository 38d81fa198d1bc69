/**
 * @slow The `group explain --html` page opened in a real headless Chromium (Debian's `chromium`, installed by
 * .ci/run; skipped with a message where /usr/bin/chromium is absent): the screenshot is not blank and shows the
 * member lanes, no request leaves the page (Chromium's net log: a request made for a file:// page carries a
 * file:// network isolation key; a page that loads an image shows one, so the check can fail), and hostile names
 * are text in the rendered DOM, never elements.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {inflateSync} from 'node:zlib'
import {afterAll, describe, expect, it} from 'vitest'
import {explainHtml} from '../../../src/render/html/page.js'
import {HOSTILE, picture} from '../../lib/picture.js'

const CHROMIUM = '/usr/bin/chromium'
const HAVE = existsSync(CHROMIUM)
if (!HAVE)
  console.warn(`html-chromium: ${CHROMIUM} not found (Debian's chromium package, installed by .ci/run as root): the headless browser checks are skipped`)

const dir = mkdtempSync(join(tmpdir(), 'rd-chromium-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

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

function chromium(args: string[], page: string): string {
  const r = spawnSync(CHROMIUM, [...FLAGS, `--user-data-dir=${mkdtempSync(join(dir, 'profile-'))}`, ...args, `file://${page}`], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  })
  if (r.error) throw r.error
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

function pageFile(name: string, html: string): string {
  const file = join(dir, name)
  writeFileSync(file, html)
  return file
}

/** Requests made on behalf of a file:// page (net log events whose network isolation key is file://). */
function pageRequests(netLog: string): string[] {
  const log = JSON.parse(readFileSync(netLog, 'utf8')) as {events: Array<{params?: {url?: string; network_isolation_key?: string}}>}
  return log.events.filter(e => e.params?.network_isolation_key?.includes('file://')).map(e => e.params?.url ?? '(no url)')
}

interface Image {
  width: number
  height: number
  /** RGB of (x, y). */
  rgb: (x: number, y: number) => [number, number, number]
}

/** A PNG read with node:zlib: 8-bit RGB or RGBA, non-interlaced (what Chromium writes), each row unfiltered. */
function readPng(file: string): Image {
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
function blueBands(img: Image, min: number): number[][] {
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

describe.skipIf(!HAVE)('group explain --html in headless Chromium', () => {
  const {report, lanes} = picture(HOSTILE)
  const page = pageFile('hostile.html', explainHtml(report, lanes, {now: 1_700_000_100_000}))

  it('the screenshot is not blank: the three member lanes are drawn; no request left the page (net log)', {timeout: 120_000}, () => {
    const [png, net] = [join(dir, 'hostile.png'), join(dir, 'net.json')]
    chromium([`--screenshot=${png}`, '--window-size=1280,900', `--log-net-log=${net}`], page)
    expect(pageRequests(net)).toEqual([])
    const img = readPng(png)
    expect([img.width, img.height]).toEqual([1280, 900])
    let ink = 0
    for (let y = 0; y < img.height; y += 2) for (let x = 0; x < img.width; x += 2) if (img.rgb(x, y).some(v => v < 200)) ink++
    expect(ink / ((img.width * img.height) / 4)).toBeGreaterThan(0.02)
    // the lanes' spans: three bands of blue rows, one per member, 14 px high (the span's height)
    const bands = blueBands(img, 30)
    expect(bands.filter(b => b.length >= 10 && b.length <= 16)).toHaveLength(3)
  })

  it('the net log check can fail: a page with an image shows its request', {timeout: 120_000}, () => {
    const leaky = pageFile('leaky.html', '<!DOCTYPE html><p>x</p><img src="http://127.0.0.1:9/x.png">')
    const leakyNet = join(dir, 'leaky-net.json')
    chromium([`--log-net-log=${leakyNet}`, '--dump-dom'], leaky)
    expect(pageRequests(leakyNet)).toContain('http://127.0.0.1:9/x.png')
  })

  it('hostile names are text in the rendered DOM: no script or img element, the names shown', {timeout: 120_000}, () => {
    const dom = chromium(['--dump-dom'], page)
    expect(dom).toContain('<svg class="timeline"')
    expect(dom.match(/<g class="lane">/g)).toHaveLength(3)
    expect(dom).not.toMatch(/<script|<img/i)
    expect(dom).toContain('<h1>Group <code>g&lt;script&gt;alert("group")&lt;/script&gt;\\x1b[31m</code></h1>')
    expect(dom).toContain('client-m1&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(dom).toContain('m3\\x1b]0;owned\\x07\\u202e')
  })
})
