/** How a daemon's exit reads to an engineer: the code or signal, and what the code usually means. */

/** sysexits.h codes tac_plus-ng exits with (FreeRADIUS exits 1 and says why on its output). */
const SYSEXITS: Record<number, string> = {
  64: 'wrong command line',
  69: 'a service it needs is unavailable',
  71: 'a system call failed',
  75: 'it could not listen on its address and port (in use, or not an address of this machine)',
  77: 'permission denied',
  78: 'its configuration is refused',
}

export function exitWords(daemon: string, code: number | null, signal: string | null): string {
  if (signal) return `${daemon} was ended by ${signal}`
  if (code === null) return `${daemon} exited`
  const meaning = daemon === 'tac_plus-ng' ? SYSEXITS[code] : undefined
  return `${daemon} exited with code ${code}${meaning ? ` (${meaning})` : ''}`
}
