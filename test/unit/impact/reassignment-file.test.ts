/** `impact --reassignment FILE` is read as metadata files are: a BOM allowed, the size bounded first. */
import * as fs from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {readReassignmentFile} from '../../../src/sources/reassignment-file.js'

const PLAN = {version: 1, partitions: [{topic: 'orders', partition: 0, replicas: [1, 2]}]}
const dirs: string[] = []
function file(content: string | Buffer): string {
  const d = fs.mkdtempSync(join(tmpdir(), 'rd-reassign-'))
  dirs.push(d)
  const f = join(d, 'plan.json')
  fs.writeFileSync(f, content)
  return f
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true})
  delete process.env.REBALANCE_DOCTOR_MAX_METADATA_BYTES
})

describe('readReassignmentFile', () => {
  it('a UTF-8 BOM is accepted (as for metadata files): the same plan as without', async () => {
    const plain = await readReassignmentFile(file(JSON.stringify(PLAN)))
    const bom = await readReassignmentFile(file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(PLAN))])))
    expect(bom).toEqual(plain)
  })

  it('a file over the bound is refused from its size, before it is read (a 400 MB sparse file: no 400 MB held)', async () => {
    const f = file('')
    fs.truncateSync(f, 400 * 1024 * 1024)
    const rss0 = process.memoryUsage().rss
    await expect(readReassignmentFile(f)).rejects.toMatchObject({
      code: 'BAD_REASSIGNMENT',
      message: `--reassignment ${f} is larger than ${256 * 1024 * 1024} bytes`,
    })
    expect(process.memoryUsage().rss - rss0).toBeLessThan(100 * 1024 * 1024)
    // the bound is the metadata files' one
    process.env.REBALANCE_DOCTOR_MAX_METADATA_BYTES = '10'
    await expect(readReassignmentFile(file(JSON.stringify(PLAN)))).rejects.toMatchObject({
      code: 'BAD_REASSIGNMENT',
      message: expect.stringMatching(/is larger than 10 bytes/),
    })
  })

  it('bad UTF-8 names the byte offset; a missing file names the file', async () => {
    await expect(readReassignmentFile(file(Buffer.from([0x7b, 0xff, 0x7d])))).rejects.toMatchObject({
      code: 'BAD_REASSIGNMENT',
      message: expect.stringMatching(/not valid UTF-8 at byte offset 1/),
    })
    await expect(readReassignmentFile('/nonexistent/plan.json')).rejects.toMatchObject({
      code: 'BAD_REASSIGNMENT',
      message: expect.stringMatching(/cannot read --reassignment \/nonexistent\/plan.json/),
    })
  })
})
