/**
 * `group explain --html`: one self-contained page. A lane per member and a line per bump labelled with its causes,
 * the same facts as text (tables), names from the records escaped (no tag, attribute or terminal escape gets
 * through), nothing to load from elsewhere, and a group of 200 members / 2,000 bumps summed into readable lanes.
 */
import {describe, expect, it} from 'vitest'
import {explainHtml, MAX_LANES} from '../../../src/render/html/page.js'
import {HOSTILE, PLAIN, picture, syntheticPicture} from '../../lib/picture.js'

const NOW = 1_700_000_100_000
const count = (text: string, re: RegExp) => (text.match(re) ?? []).length
/** Every start tag of the page. */
const tags = (html: string) => html.match(/<[a-zA-Z][^>]*>/g) ?? []

describe('group explain --html', () => {
  it('draws a lane per member, the lane of partitions without an owner, and a labelled line per bump', () => {
    const {report, lanes} = picture()
    const html = explainHtml(report, lanes, {now: NOW})
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true)
    expect(count(html, /<g class="lane">/g)).toBe(3)
    expect(count(html, /<g class="lane nobody">/g)).toBe(1)
    for (const m of ['m1', 'm2', 'm3']) expect(html).toContain(`>client-${m} (${m})<title>`)
    expect(count(html, /<g class="bump">/g)).toBe(3)
    expect(html).toMatch(/<text class="bl"[^>]*>2: member-joined \(3 moved\)<\/text>/)
    expect(html).toMatch(/<text class="bl"[^>]*>3: member-joined \(2 moved\)<\/text>/)
    expect(count(html, /<rect class="slow" x=/g)).toBe(lanes.lanes.reduce((n, l) => n + l.slow.length, 0))
    expect(html).toMatch(/<rect class="slow"[^>]*><title>client-m1 \(m1\): the slowest member of epoch 3, revoking 1 partition for 6\.0 s/)
    expect(count(html, /<rect class="gap"/g)).toBeGreaterThan(0)
  })

  it('has the same facts as text: a row per bump with its causes and cost, the members, the gaps, the legend', () => {
    const {report, lanes} = picture()
    const html = explainHtml(report, lanes, {now: NOW})
    const bumpRows = html.slice(html.indexOf('<table class="bumps">'), html.indexOf('</table>', html.indexOf('<table class="bumps">')))
    expect(count(bumpRows, /<tr><td>/g)).toBe(3)
    expect(bumpRows).toContain('member m3 (client client-m3) joined')
    expect(bumpRows).toContain(
      '2 partitions moved; 1.0 partition-s without an owner; converged in 8.2 s; slowest client client-m1: revoking 1 partition for 6.0 s',
    )
    expect(html).toContain('<table class="members">')
    expect(html).toMatch(/<tr><td>orders-2<\/td><td>3<\/td><td>[^<]+<\/td><td>0\.7 s<\/td><\/tr>/)
    expect(html).toContain('<figcaption><ul class="legend">')
    expect(html).toContain('<svg class="timeline"')
    expect(html).toMatch(/role="img" aria-labelledby="tl-title">\n<title id="tl-title">Timeline of group orders-app: 3 members, 3 bumps/)
    expect(html).toContain('What the records cannot tell')
  })

  it('escapes hostile group, member, client and topic names: no element from them, control characters as escapes', () => {
    const {report, lanes} = picture(HOSTILE)
    const html = explainHtml(report, lanes, {now: NOW})
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/<img/i)
    expect(tags(html).filter(t => /\son\w+=/i.test(t))).toEqual([])
    expect(html).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/)
    expect(html).toContain('<h1>Group <code>g&lt;script&gt;alert(&quot;group&quot;)&lt;/script&gt;\\x1b[31m</code></h1>')
    expect(html).toContain('client-m1&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).toContain('m2&quot;&#39;&gt;&lt;img onerror=alert(2)&gt;')
    expect(html).toContain('m3\\x1b]0;owned\\x07\\u202e')
    expect(html).toContain('orders&lt;script&gt;alert(&quot;topic&quot;)&lt;/script&gt;-2')
  })

  it('loads nothing: no URL, no src or href, no script, style inline', () => {
    for (const names of [PLAIN, HOSTILE]) {
      const {report, lanes} = picture(names)
      const html = explainHtml(report, lanes, {now: NOW})
      expect(html).not.toMatch(/https?:\/\/|url\((?!#hatch\))/i)
      expect(tags(html).filter(t => /\s(src|href|xlink:href|srcset|action|data)=/i.test(t))).toEqual([])
      expect(tags(html).filter(t => /^<(script|link|iframe|object|embed|img|image|use|foreignObject)\b/i.test(t))).toEqual([])
      expect(count(html, /<style>/g)).toBe(1)
    }
  })

  it('200 members and 2,000 bumps: lanes summed past the limit, labels where they fit, said in the page, under 5 MB', () => {
    const {report, lanes} = syntheticPicture(200, 2000)
    const html = explainHtml(report, lanes, {now: NOW})
    expect(count(html, /<g class="lane(?: aggregated)?">/g)).toBe(MAX_LANES)
    expect(count(html, /<g class="lane aggregated">/g)).toBe(1)
    expect(html).toContain('>161 other members<title>')
    expect(html).toContain('200 members: the 39 busiest are drawn in a lane each, the other 161 are summed in the last lane')
    const labelled = count(html, /<text class="bl"/g)
    expect(labelled).toBeGreaterThan(20)
    expect(labelled).toBeLessThan(100)
    expect(html).toContain(`Labels are drawn for ${labelled} of the 2,000 bumps`)
    expect(count(html, /<g class="bump">/g)).toBe(2000)
    expect(count(html.slice(html.indexOf('<table class="bumps">')), /<tr><td>\d+<\/td>/g)).toBe(2000)
    expect(count(html.slice(html.indexOf('<table class="members">')), /<tr><td><code>member-/g)).toBe(200)
    expect(Buffer.byteLength(html)).toBeLessThan(5_000_000)
  })

  it('a few members and bumps: no aggregation note; no records read: the page says there is no timeline', () => {
    const {report, lanes} = picture()
    expect(explainHtml(report, lanes, {now: NOW})).not.toContain('class="aggregated"')
    const html = explainHtml({...report, timeline: []}, null, {now: NOW})
    expect(html).toContain('No timeline')
    expect(html).not.toContain('<svg class="timeline"')
  })
})
