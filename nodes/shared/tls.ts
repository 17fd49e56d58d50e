// The ERP API requires TLS 1.3 (specification, "Security"). n8n's request helpers pass
// `agentOptions` to each https.Agent they build (direct, proxy, redirects; 2.41: buildAgentOptions
// in @n8n/backend-network): a server with only older versions fails the handshake. n8n before 2.20
// drops them, so no minimum there (Base URL field, docs/compatibility.md). http:// is left alone.
import type { IHttpRequestOptions } from 'n8n-workflow';

import { requestTarget } from './guards';

/** The request with TLS 1.3 as its minimum when it goes to an https:// address; else unchanged. */
export function withTlsMinimum(request: IHttpRequestOptions): IHttpRequestOptions {
	if (requestTarget(request)?.protocol !== 'https:') return request;
	return { ...request, agentOptions: { ...request.agentOptions, minVersion: 'TLSv1.3' } };
}
