// What an uploaded file is, decided from its bytes (magic numbers), never from
// the header alone: a PNG, JPEG, GIF, WebP, PDF, or plain UTF-8 text. Pure.

export const ATTACHMENT_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/pdf', 'text/plain'] as const
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number]
export const EXTENSION: Record<AttachmentType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
}

const starts = (b: Uint8Array, sig: number[], at = 0) => sig.every((x, i) => b[at + i] === x)
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0))

/** The type the bytes are, or undefined when they are none of the allowed ones. */
export function sniff(b: Uint8Array): AttachmentType | undefined {
  if (starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (starts(b, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (starts(b, ascii('GIF87a')) || starts(b, ascii('GIF89a'))) return 'image/gif'
  if (starts(b, ascii('RIFF')) && starts(b, ascii('WEBP'), 8)) return 'image/webp'
  if (starts(b, ascii('%PDF-'))) return 'application/pdf'
  if (b.includes(0)) return undefined
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b)
    return 'text/plain'
  } catch {
    return undefined
  }
}

/** The media type a Content-Type header names (parameters dropped), lower-cased. */
export const mediaType = (header: string | null): string => (header ?? '').split(';')[0]!.trim().toLowerCase()
