// POST /attachments (docs/bridge.md "Attachments"): a photo or a file from the
// phone, stored for the agent. The token and scope are checked before the body is
// read (the guard), the length before it is read past 10 MiB, the type from the
// bytes' magic numbers as well as the header.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { needs } from '../auth/scopes'
import type { Principal } from '../auth/types'
import { ATTACHMENT_TYPES, mediaType, sniff, type AttachmentType } from '../attachments/kind'
import { ATTACHMENT_MAX_BYTES } from '../attachments/store'
import { readCapped } from '../server/capped-body'
import { paneTargets, plainTextErrors } from './edge'
import { RAW_BODY_KEY } from '../auth/guard'

const TOO_LARGE = `larger than ${ATTACHMENT_MAX_BYTES / 1024 / 1024} MiB`

export function attachmentRoutes(ctx: Ctx) {
  return new Elysia({ name: 'attachments' }).use(paneTargets(ctx)).post(
    '/attachments',
    async (c) => {
      const { request, status } = c
      const store = ctx.attachments
      if (!store) return status(503, 'attachments are not configured on this bridge')
      const declaredType = mediaType(request.headers.get('content-type'))
      if (!(ATTACHMENT_TYPES as readonly string[]).includes(declaredType)) return status(415, `want one of ${ATTACHMENT_TYPES.join(', ')}`)
      const bytes = await readCapped(request.body, request.headers.get('content-length'), ATTACHMENT_MAX_BYTES)
      if (!bytes) return status(413, TOO_LARGE)
      if (bytes.length === 0) return status(400, 'empty body')
      const found = sniff(bytes)
      if (found !== declaredType) return status(415, found ? `the bytes are ${found}, not ${declaredType}` : `the bytes are not ${declaredType}`)
      const p = (c as unknown as { principal: Principal }).principal
      const a = store.save(p.kind === 'device' ? p.deviceId : 'admin', found as AttachmentType, bytes)
      return status(201, { id: a.id, path: a.path, bytes: a.bytes, mime: a.mime })
    },
    {
      parse: 'none',
      query: t.Object({ pane: t.String({ minLength: 1 }) }, { error: 'want ?pane=<pane_id>' }),
      agentTarget: true,
      response: {
        201: t.Object({ id: t.String(), path: t.String({ description: 'where the agent reads it' }), bytes: t.Integer(), mime: t.String() }),
        ...plainTextErrors(400, 401, 403, 404, 413, 415, 502, 503),
      },
      detail: needs(
        'type',
        {
          [RAW_BODY_KEY]: true,
          summary: "Upload a photo or a file for an agent (the body is the file's bytes)",
          description: `Content-Type ${ATTACHMENT_TYPES.join(', ')}, checked against the bytes' magic numbers (415 otherwise); at most 10 MiB (413, refused before it is read past the limit). Stored privately for 7 days; POST /send with \`attachments\` hands it to the agent. A device sends only what it uploaded.`,
          tags: ['actions'],
        },
        'attach',
      ),
    },
  )
}
