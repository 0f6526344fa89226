/** A small RFC 8907 TACACS+ client: the packet codec and a session-per-connection client. */
export * from './packet.js'
export * from './client.js'
