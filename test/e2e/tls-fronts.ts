/**
 * The TLS checks' servers for the real-n8n files (test/e2e/tls.test.ts, test/compat/): two HTTPS
 * fronts to the sandbox (one offers only TLS 1.2, one TLS 1.3; certificate made at test time, see
 * test/transport/tls-servers.ts), n8n trusting it through NODE_EXTRA_CA_CERTS as an administrator
 * would configure a private CA, and an API key credential per front.
 */
import { DEMO_KEYS } from '../../sandbox';
import type { CredentialImport } from '../../scripts/n8n-instance';
import { makeCertificate, startFront, type Front } from '../transport/tls-servers';
import type { E2e } from './helpers';

export const TLS_CREDENTIALS = {
	tls12: { id: 'ErpTls12Only0001', name: 'ERP (TLS 1.2-only server)' },
	tls13: { id: 'ErpTls13Server01', name: 'ERP (TLS 1.3 server)' },
};

export type TlsFronts = {
	tls12: Front;
	tls13: Front;
	/** TLS_CREDENTIALS with their fronts' Base URLs, for startE2e's credentials. */
	credentials: CredentialImport[];
	close(): Promise<void>;
};

/** The fronts, their credentials, and n8n set to trust them: before n8n starts. */
export async function startTlsFronts(e2e: Pick<E2e, 'userFolder' | 'sandbox' | 'config'>) {
	const certificate = makeCertificate(e2e.userFolder);
	const tls12 = await startFront(e2e.sandbox.url, certificate, 'TLSv1.2');
	const tls13 = await startFront(e2e.sandbox.url, certificate, 'TLSv1.3');
	e2e.config.extraEnv = { ...e2e.config.extraEnv, NODE_EXTRA_CA_CERTS: certificate.certFile };
	const fronts: TlsFronts = {
		tls12,
		tls13,
		credentials: (['tls12', 'tls13'] as const).map((which) => ({
			...TLS_CREDENTIALS[which],
			type: 'erpApi',
			data: {
				environment: 'sandbox',
				baseUrl: (which === 'tls12' ? tls12 : tls13).baseUrl,
				apiKey: DEMO_KEYS.full,
				webhookSecret: '',
			},
		})),
		close: async () => {
			await tls12.close();
			await tls13.close();
		},
	};
	return fronts;
}
