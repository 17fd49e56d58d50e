/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test servers; runs the openssl CLI */
/**
 * HTTPS servers for the TLS 1.3 minimum tests (tls.test.ts, and the real-n8n layer in
 * test/e2e/tls.test.ts): a throw-away self-signed certificate made by the openssl CLI at test time
 * (never committed), and servers that front the sandbox offering at most a given TLS version.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';

export interface TestCertificate {
	key: Buffer;
	cert: Buffer;
	/** The certificate's PEM file, for NODE_EXTRA_CA_CERTS. */
	certFile: string;
}

/** A self-signed certificate for 127.0.0.1, valid one day, written to `dir` (key.pem, cert.pem). */
export function makeCertificate(dir: string): TestCertificate {
	const keyFile = path.join(dir, 'key.pem');
	const certFile = path.join(dir, 'cert.pem');
	execFileSync('openssl', [
		'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
		'-keyout', keyFile, '-out', certFile, '-days', '1',
		'-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
	], { stdio: 'ignore' }); // prettier-ignore
	return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
}

export interface Front {
	baseUrl: string;
	origin: string;
	/** TCP connections accepted, and the TLS version of each completed handshake. */
	connections: number;
	protocols: string[];
	close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 that forwards every request to the sandbox, offering at most `maxVersion`. */
export async function startFront(
	sandboxUrl: string,
	tls: { key: Buffer; cert: Buffer },
	maxVersion: 'TLSv1.2' | 'TLSv1.3',
): Promise<Front> {
	const server = https.createServer({ key: tls.key, cert: tls.cert, maxVersion }, (req, res) => {
		const upstream = http.request(
			new URL(req.url ?? '/', sandboxUrl),
			{ method: req.method, headers: req.headers },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	});
	const front = { connections: 0, protocols: [] as string[] } as Front;
	server.on('connection', () => front.connections++);
	server.on('secureConnection', (socket: TLSSocket) =>
		front.protocols.push(String(socket.getProtocol())),
	);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	front.origin = `https://127.0.0.1:${port}`;
	front.baseUrl = `${front.origin}/v1`;
	front.close = () =>
		new Promise<void>((resolve) => {
			server.closeAllConnections();
			server.close(() => resolve());
		});
	return front;
}
