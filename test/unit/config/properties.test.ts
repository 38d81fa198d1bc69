import {describe, expect, it} from 'vitest'
import {InputError} from '../../../src/core/errors.js'
import {parseProperties} from '../../../src/config/properties.js'

const values = (text: string) => Object.fromEntries([...parseProperties(text)].map(([k, e]) => [k, e.value]))

describe('parseProperties (java.util.Properties.load rules)', () => {
  it('accepts =, : and whitespace as separators, with whitespace around them', () => {
    expect(values('a=1\nb:2\nc 3\nd = 4\ne\t:\t5\nf  =  six  \n')).toEqual({a: '1', b: '2', c: '3', d: '4', e: '5', f: 'six  '})
  })

  it('skips # and ! comments and blank lines; a key alone has an empty value', () => {
    expect(values('# comment\n  ! also\n\n   \nkey\nk2=\n')).toEqual({key: '', k2: ''})
  })

  it('joins continuation lines and drops the leading whitespace of the next line', () => {
    expect(values('sasl.jaas.config=org.Foo required \\\n    username="u" \\\n    password="p";\nnext=1')).toEqual({
      'sasl.jaas.config': 'org.Foo required username="u" password="p";',
      next: '1',
    })
  })

  it('an even run of trailing backslashes is an escaped backslash, not a continuation', () => {
    expect(values('a=x\\\\\nb=y')).toEqual({a: 'x\\', b: 'y'})
  })

  it('a continuation line starting with # is not a comment; a comment line ending in \\ does not continue', () => {
    expect(values('a=1\\\n#2\n# c \\\nb=3')).toEqual({a: '1#2', b: '3'})
  })

  it('a trailing backslash at the end of the file is dropped', () => {
    expect(values('a=1\\')).toEqual({a: '1'})
  })

  it('handles \\r\\n and \\r line ends and a BOM', () => {
    expect(values('\uFEFFa=1\r\nb=2\rc=3')).toEqual({a: '1', b: '2', c: '3'})
  })

  it('unescapes \\t \\n \\r \\f \\uXXXX and other escaped characters, in keys and values', () => {
    expect(values('k\\ ey\\=x=v\\tw\\nx\\u00e9\\:\\\\z\\q')).toEqual({'k ey=x': 'v\tw\nxé:\\zq'})
  })

  it('the value keeps separators after the first one', () => {
    expect(values('url=file:///tmp/a=b')).toEqual({url: 'file:///tmp/a=b'})
  })

  it('the last value of a repeated key wins and records its line', () => {
    const p = parseProperties('a=1\nb=2\na=3')
    expect(p.get('a')).toEqual({value: '3', line: 3})
  })

  it('a malformed \\u escape is an InputError naming the line and key, never the value', () => {
    let err: unknown
    try {
      parseProperties('x=1\nssl.key.password=hunter2\\u12', 'client.properties')
    } catch (error) {
      err = error
    }
    expect(err).toBeInstanceOf(InputError)
    expect((err as Error).message).toContain('client.properties: line 2')
    expect((err as Error).message).toContain('ssl.key.password')
    expect((err as Error).message).not.toContain('hunter2')
  })
})
