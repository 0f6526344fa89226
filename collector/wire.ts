/**
 * The wire types the collector shares with the core. TEMPORARY copy of sdk/collector-protocol.ts's
 * types (helper ha is writing it); replaced by a re-export once it is on main.
 */
export interface DeviceCredential { username: string; password?: string; private_key?: string; passphrase?: string; enable_secret?: string }
export interface CollectorProfile { id: string; name: string; mode: 'shell' | 'exec'; prompt: string; login_prompt: string | null; login_answer: string | null; pre_commands: string[]; enable_command: string | null; enable_prompt: string | null; command: string; pager_pattern: string | null; pager_answer: string; command_timeout_seconds: number; legacy_algorithms: boolean }
export type FetchStatus = 'ok' | 'timeout' | 'connect_failed' | 'auth_failed' | 'host_key_mismatch' | 'too_large' | 'protocol_error'
