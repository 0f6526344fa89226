/** Small helpers shared by the aaa-logs API tests: the test kit's. */
export { uniq, expectError } from '../../../test/kit/expect.js'
