import { expect, test } from 'bun:test'
import { herdrProblem } from '../src/herdr-health'

test('the banner says what to do about herdr, and nothing while it serves', () => {
  const advice = "herdr's CLI speaks protocol 22 and its running server 20 (herdr was updated, its server not restarted): restart the herdr server"
  expect(herdrProblem({ found: true, server: 'protocol_mismatch', detail: advice })).toBe(advice)
  expect(herdrProblem({ found: true, server: 'protocol_mismatch' })).toContain('restart the herdr server')
  expect(herdrProblem({ found: true, server: 'not_running' })).toContain('start herdr')
  expect(herdrProblem({ found: true, server: 'not_responding' })).toContain('restart the herdr server')
  expect(herdrProblem({ found: false, server: 'not_running' })).toContain('not found')
  expect(herdrProblem({ found: true, server: 'running' })).toBeNull()
  expect(herdrProblem({ found: true, server: 'unknown', detail: 'boom' })).toBeNull()
  expect(herdrProblem(undefined)).toBeNull()
})
