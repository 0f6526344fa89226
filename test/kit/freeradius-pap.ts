/**
 * The blocks of the smallest FreeRADIUS tree that answers PAP from a users
 * file, for tests that write a radiusd.conf by hand (the daemon's own
 * behaviour, not the renderer's): one loopback client, `files` and `pap`, one
 * auth listener; `postAuth` goes into the post-auth section.
 */
export const papServerBlocks = (o: { dir: string; port: number; secret: string; postAuth?: string }) => `client lo {
	ipaddr = 127.0.0.1
	secret = ${o.secret}
}
modules {
	files {
		filename = ${o.dir}/users
	}
	pap {
	}
}
server default {
	listen {
		type = auth
		ipaddr = 127.0.0.1
		port = ${o.port}
	}
	authorize {
		files
		pap
	}
	authenticate {
		Auth-Type PAP {
			pap
		}
	}
	post-auth {
${o.postAuth ?? ''}
	}
}
`
