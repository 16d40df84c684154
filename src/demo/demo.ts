// gothalo --demo: a bundled herdr stand-in and sample sessions (filled in below).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export async function prepareDemo(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-demo-'))
  return { dir, env: { FAKE_HERDR_STATE: join(dir, 'herdr-state.json') } }
}
