// TLS: the ERP API requires TLS 1.3 (specification, "Security" and "Limits"). n8n's request helpers
// (2.41: @n8n/backend-network's buildAgentOptions) hand a request's `agentOptions` to the
// https.Agent they build for it (direct, through a proxy, and for each redirect), so asking for
// TLS 1.3 here makes the handshake fail against a server that offers only older versions. Plain
// http:// (a local server, see guards.ts) has no TLS and is left alone. n8n before 2.20 (n8n-core
// before 2.20.0, 1.x included) drops `agentOptions` in httpRequest: there n8n cannot enforce the
// minimum, which the credential's Base URL field and docs/compatibility.md say.
import type { IHttpRequestOptions } from 'n8n-workflow';

import { requestTarget } from './guards';

const TLS_MIN_VERSION = 'TLSv1.3';

/** The request with TLS 1.3 as its minimum when it goes to an https:// address; else unchanged. */
export function withTlsMinimum(request: IHttpRequestOptions): IHttpRequestOptions {
	if (requestTarget(request)?.protocol !== 'https:') return request;
	return { ...request, agentOptions: { ...request.agentOptions, minVersion: TLS_MIN_VERSION } };
}
