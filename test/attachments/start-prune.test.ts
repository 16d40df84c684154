// Attachments older than 7 days are removed when the bridge starts, not only at
// its first daily pass (issue 37, also measured): a bridge restarted every day
// kept them for ever.
import { afterAll, expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ATTACHMENT_KEEP_MS, createAttachmentStore } from '../../src/attachments/store'
import { startBridge, tempDir, type Bridge } from '../support/harness'

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d494844520000000100000001', 'hex'), Buffer.alloc(40)])
let b: Bridge | undefined
afterAll(() => b?.stop())

test('a bridge that starts removes the attachments past 7 days, and keeps the rest', async () => {
  const d = tempDir('gothalo-att-start-')
  let now = Date.now() - ATTACHMENT_KEEP_MS - 3600_000
  const store = createAttachmentStore(join(d, 'attachments'), join(d, 'g.db'), () => now)
  const old = store.save('dev', 'image/png', PNG)
  now = Date.now()
  const fresh = store.save('dev', 'image/png', PNG)
  expect(existsSync(old.path)).toBe(true)
  b = await startBridge({ deps: { attachments: store } })
  // removed by the start itself: no request, no timer
  expect(readdirSync(join(d, 'attachments'))).toEqual([`${fresh.id}.png`])
  expect(store.get(fresh.id, 'dev')?.id).toBe(fresh.id)
})
