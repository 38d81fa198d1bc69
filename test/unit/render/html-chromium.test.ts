/**
 * @slow The `group explain --html` page opened in a real headless Chromium (Debian's `chromium`, installed by
 * .ci/run; skipped with a message where /usr/bin/chromium is absent): the screenshot is not blank and shows the
 * member lanes, no request leaves the page (Chromium's net log; a page that loads an image shows one, so the check
 * can fail), and hostile names are text in the rendered DOM, never elements.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {explainHtml} from '../../../src/render/html/page.js'
import {blueBands, chromiumDir, chromium as chromiumIn, HAVE_CHROMIUM as HAVE, pageRequests, readPng, skipMessage} from '../../lib/chromium.js'
import {HOSTILE, picture} from '../../lib/picture.js'

if (!HAVE) console.warn(skipMessage('html-chromium'))

const {dir, remove} = chromiumDir()
afterAll(remove)
const chromium = (args: string[], page: string) => chromiumIn(dir, args, page)

function pageFile(name: string, html: string): string {
  const file = join(dir, name)
  writeFileSync(file, html)
  return file
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
