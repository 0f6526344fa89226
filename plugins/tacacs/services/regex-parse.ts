/** The portable spelling of a stored pattern (sdk/safe-regex-parse.ts), under the name tacacs' tests know. */
export { portablePattern } from '../../../sdk/index.js'
