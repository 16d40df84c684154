// Markdown for assistant messages. Agents write raw HTML into prose now and
// then; it is shown as text, never parsed, and the result is sanitized again.
import { Marked } from 'marked'
import DOMPurify from 'dompurify'

const md = new Marked({ gfm: true, breaks: false })
md.use({
  renderer: {
    html({ text }) {
      return escapeHtml(text)
    },
    link({ href, text }) {
      const safe = /^(https?:|mailto:)/i.test(href) ? href : '#'
      return `<a href="${escapeHtml(safe)}" target="_blank" rel="noopener noreferrer">${escapeHtml(text)}</a>`
    },
    image({ text }) {
      return escapeHtml(`[image: ${text}]`)
    },
  },
})

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(md.parse(text, { async: false }) as string)
}
