import { closeSync } from 'node:fs'
import { isatty } from 'node:tty'

const STDIO = [0, 1, 2]

/**
 * Lets the process end when its terminal hung up (a closed window, a dropped SSH session) before it exits.
 *
 * At exit Node restores the settings of each stdio descriptor that was a terminal at start, and Node 20 aborts when
 * that fails (nodejs/node#51519; later lines ignore the failure since nodejs/node#58200). A terminal that hung up
 * fails it with EIO, the abort's own backtrace then faults in a loop, and the process never ends: it spins, holds its
 * port and ignores SIGTERM. A descriptor of a terminal that is gone is closed on `exit`, before that restore runs, so
 * there is nothing left to restore; nothing could be written to it anyway. A terminal still there is left as it is.
 */
export function releaseHungUpTerminals (): void {
  const terminals = STDIO.filter((fd) => isatty(fd))
  if (terminals.length === 0) return
  process.once('exit', () => {
    for (const fd of terminals) {
      // isatty asks the terminal; a hung-up one answers EIO, which isatty reports as false.
      if (!isatty(fd)) closeSync(fd)
    }
  })
}
