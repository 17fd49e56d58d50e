// TLS: the ERP API requires TLS 1.3 (specification, "Security"). n8n's request helpers (2.41:
// @n8n/backend-network's buildAgentOptions) hand a request's `agentOptions` to the https.Agent
// they build for it (direct, through a proxy, each redirect), so a server offering only older
// versions fails the handshake. n8n before 2.20 drops `agentOptions`: there the minimum cannot be
// enforced (the Base URL field and docs/compatibility.md say so). Plain http:// is left alone.
import type { IHttpRequestOptions } from 'n8n-workflow';

import { requestTarget } from './guards';

/** The request with TLS 1.3 as its minimum when it goes to an https:// address; else unchanged. */
export function withTlsMinimum(request: IHttpRequestOptions): IHttpRequestOptions {
	if (requestTarget(request)?.protocol !== 'https:') return request;
	return { ...request, agentOptions: { ...request.agentOptions, minVersion: 'TLSv1.3' } };
}
