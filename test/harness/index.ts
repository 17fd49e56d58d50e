/**
 * The workflow harness: runs real n8n workflows (n8n-core's WorkflowExecute) with our node
 * types, a credentials helper that behaves as n8n's, and the webhook side of triggers.
 * See README.md in this folder.
 */
export { START_NODE_TYPE, START_NODE_NAME, runWorkflow } from './run-workflow';
export type { NodeSpec, RunWorkflowSpec, RunWorkflowResult } from './run-workflow';
export { TestCredentials, credentialRef } from './credentials';
export type { CredentialData } from './credentials';
export { loadNodeType, getCredentialType, OAuth2Api } from './runtime';
export { DEFAULT_WORKFLOW_ID, loadStaticData, resetStaticData } from './additional-data';
export { connectOAuth2 } from './oauth2';
export { ERP_TRIGGER_TYPE, activateTrigger } from './webhook';
export { ERP_POLLING_TRIGGER_TYPE, activatePoller } from './poll';
export type { PollerHandle, PollerSpec } from './poll';
export type {
	DeliveryRequest,
	DeliveryResult,
	TriggerHandle,
	TriggerListener,
	TriggerSpec,
} from './webhook';
export {
	describeFinding,
	leakCounts,
	leakFindings,
	registerSecret,
	scanError,
	scanLog,
	scanRequest,
	scanStaticData,
	scanOutput,
	secretNames,
	takeFindingsSince,
} from './leaks';
export type { LeakCounts, LeakFinding } from './leaks';
