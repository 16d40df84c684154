// Open sockets by device, so revoking a device closes its sockets at once,
// and all of them, so a shutdown closes each with a normal 1000.
import type { Principal } from '../auth/types'

export type Close = (code: number, reason: string) => void

export class SocketRegistry {
  private byDevice = new Map<string, Set<() => void>>()
  private all = new Set<Close>()

  /** Closes every open socket (the server is shutting the streams down). */
  closeAll(code: number, reason: string): number {
    const n = this.all.size
    for (const close of [...this.all]) close(code, reason)
    this.all.clear()
    return n
  }

  /** Registers a socket; returns the unregister function. */
  add(principal: Principal | undefined, closeSocket: Close): () => void {
    this.all.add(closeSocket)
    const close = () => closeSocket(1000, 'device revoked')
    if (principal?.kind !== 'device') return () => void this.all.delete(closeSocket)
    const id = principal.deviceId
    let set = this.byDevice.get(id)
    if (!set) this.byDevice.set(id, (set = new Set()))
    set.add(close)
    return () => {
      this.all.delete(closeSocket)
      set!.delete(close)
      if (set!.size === 0 && this.byDevice.get(id) === set) this.byDevice.delete(id)
    }
  }

  closeDevice(deviceId: string): number {
    const set = this.byDevice.get(deviceId)
    if (!set) return 0
    this.byDevice.delete(deviceId)
    for (const close of set) close()
    return set.size
  }

  count(): number {
    let n = 0
    for (const s of this.byDevice.values()) n += s.size
    return n
  }
}
