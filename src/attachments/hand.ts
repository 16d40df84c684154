// Handing attachments to an agent the way it takes a file (docs/reference/spawn-attach.md §2):
// Claude Code, codex and opencode attach an image (opencode a PDF too) when its
// path arrives as a paste, show a placeholder, and drop an Enter that comes while
// they read it — so each path is pasted alone and the placeholder awaited before
// anything else is typed. What they do not attach (and everything, for pi, which
// has no attachment step) goes into the message as a path its tools can read.
import type { HerdrClient } from '../herdr/client'
import type { Attachment } from './store'

/** `[Image #1]` (Claude Code, codex), `[Image 1]` / `[PDF 1]` (opencode). */
const PLACEHOLDER = /\[(?:Image #?\d+|PDF \d+)\]/g

export const PLACEHOLDER_WAIT_MS = 5000

/** How many attachment placeholders a screen shows. */
export const placeholders = (screen: string) => screen.match(PLACEHOLDER)?.length ?? 0

/** Whether this kind attaches this file from a pasted path. */
export function pastes(kind: string, a: Attachment): boolean {
  if (kind === 'claude' || kind === 'codex') return a.mime.startsWith('image/')
  if (kind === 'opencode') return a.mime.startsWith('image/') || a.mime === 'application/pdf'
  return false
}

/**
 * Pastes what the agent attaches, waiting for each placeholder; answers the text to
 * type: `text` with the rest named in it (before its final Enter, on the same line:
 * a newline would be an Enter).
 */
export async function handAttachments(
  herdr: HerdrClient,
  pane: string,
  kind: string,
  attachments: Attachment[],
  text: string,
  o: { waitMs?: number; pollMs?: number } = {},
): Promise<string> {
  const named: string[] = []
  for (const a of attachments) {
    if (!pastes(kind, a)) {
      named.push(`${a.mime.startsWith('image/') ? 'Image' : 'File'}: ${a.path}`)
      continue
    }
    const before = placeholders(await herdr.paneRead(pane, { source: 'visible' }))
    await herdr.paneSendInput(pane, a.path)
    const until = Date.now() + (o.waitMs ?? PLACEHOLDER_WAIT_MS)
    for (;;) {
      if (placeholders(await herdr.paneRead(pane, { source: 'visible' })) > before) break
      if (Date.now() > until)
        throw new AttachmentNotTaken(`the agent did not attach ${a.id} (no placeholder on screen within ${(o.waitMs ?? PLACEHOLDER_WAIT_MS) / 1000} s)`)
      await Bun.sleep(o.pollMs ?? 100)
    }
  }
  if (named.length === 0) return text
  const enter = text.endsWith('\n')
  const body = enter ? text.slice(0, -1) : text
  return `${body}${body ? ' ' : ''}(${named.join('; ')})${enter ? '\n' : ''}`
}

export class AttachmentNotTaken extends Error {}
