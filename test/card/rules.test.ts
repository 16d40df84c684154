// A grammar's rule table is checked when it loads: a rule naming a field the
// card does not have, an id outside the grammar's namespace or listed twice,
// stops the bridge at start rather than showing a wrong explanation later.
import { expect, test } from 'bun:test'
import { manifest, ruleTable } from '../../src/card/rules'

test('ruleTable takes the JSON rows; a field the card does not have is refused', () => {
  expect(ruleTable([{ id: 'x.a.b', field: 'headline', says: 's' }])).toEqual([{ id: 'x.a.b', field: 'headline', says: 's' }])
  expect(() => ruleTable([{ id: 'x.a.b', field: 'blocked.answer', says: 's' }])).toThrow('rule x.a.b: no card field blocked.answer')
})

test('manifest refuses an id outside its namespace, a malformed id, and an id listed twice', () => {
  const r = (id: string) => ({ id, field: 'headline' as const, says: '' })
  expect(() => manifest('x', [r('y.a.b')])).toThrow('outside the x namespace')
  expect(() => manifest('x', [r('X.A')])).toThrow('want <grammar>.<area>.<name>')
  expect(() => manifest('x', [r('x.a.b'), r('x.a.b')])).toThrow('listed twice')
  expect(manifest('x', [r('x.a.b'), r('fallback.c.d')]).length).toBe(2)
})
