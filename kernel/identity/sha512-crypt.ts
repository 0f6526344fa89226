/** SHA-512 crypt lives in the SDK (the tacacs plugin hashes enable secrets with it too). */
export * from '../../sdk/sha512-crypt.js'
