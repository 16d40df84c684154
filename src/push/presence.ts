// Which devices have a window of the app on screen right now, as their WS /events
// sockets report it (`{"type":"visibility","visible":bool}`). A device is watching
// while any of its sockets last said visible; a socket that closes says nothing
// more. Push stays quiet for a watching device: its list already shows the change.

export class Presence {
  private readonly sockets = new Map<object, { device: string; visible: boolean }>()

  /** What one socket of `device` last reported. */
  report(socket: object, device: string, visible: boolean): void {
    this.sockets.set(socket, { device, visible })
  }

  /** The socket closed. */
  drop(socket: object): void {
    this.sockets.delete(socket)
  }

  /** A window of this device's app is visible now. */
  watching(device: string): boolean {
    for (const s of this.sockets.values()) if (s.visible && s.device === device) return true
    return false
  }
}
