/**
 * The five log kinds as the logs screen shows them: the API path, the kind's
 * own columns in the table (every column is in the drawer), its enum filters
 * and the columns it sorts by (as plugins/aaa-logs declares them).
 */
export interface LogKind {
  path: 'tacacs/authentication' | 'tacacs/authorization' | 'tacacs/accounting' | 'radius/authentication' | 'radius/accounting'
  columns: string[]
  enums: Record<string, string[]>
  sortBy: string[]
}

export const LOG_KINDS: LogKind[] = [
  { path: 'tacacs/authentication', columns: ['status', 'rule_name', 'profile', 'message'], enums: { status: ['success', 'failure'] }, sortBy: ['timestamp', 'username', 'nas_ip', 'status', 'rule_name', 'profile'] },
  { path: 'tacacs/authorization', columns: ['action', 'rule_name', 'profile', 'command'], enums: { action: ['permit', 'deny'] }, sortBy: ['timestamp', 'username', 'nas_ip', 'action', 'rule_name', 'profile'] },
  { path: 'tacacs/accounting', columns: ['action', 'service', 'command'], enums: { action: ['start', 'stop', 'watchdog'] }, sortBy: ['timestamp', 'username', 'nas_ip', 'action'] },
  {
    path: 'radius/authentication', columns: ['status', 'auth_type', 'rule_name', 'reason'],
    enums: { status: ['accept', 'reject'], auth_type: ['PAP', 'MS-CHAPv2', 'CHAP', 'MS-CHAPv1', 'PEAP', 'EAP-TLS', 'MAB'] }, sortBy: ['timestamp', 'username', 'nas_ip', 'status', 'rule_name'],
  },
  { path: 'radius/accounting', columns: ['acct_status_type', 'acct_session_id', 'framed_ip', 'session_time'], enums: { acct_status_type: ['Start', 'Stop', 'Interim-Update'] }, sortBy: ['timestamp', 'username', 'nas_ip', 'acct_status_type'] },
]

export type LogEntry = Record<string, unknown> & { id: string; timestamp: string }
export interface LogPage { items: LogEntry[]; total_by_filter: number; total_by_filter_capped: boolean; pages: number }
