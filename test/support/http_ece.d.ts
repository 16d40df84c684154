// http_ece (web-push's own encryption library) ships no types; the push tests decrypt with it.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto'
  const ece: {
    decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer
  }
  export default ece
}
