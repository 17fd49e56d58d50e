/* eslint-disable @n8n/community-nodes/no-restricted-globals -- drives n8n from outside, not a node */
/**
 * The n8n versions `npm run test:compat` runs on: COMPAT_VERSIONS (scripts/n8n-env.ts), or
 * ERP_COMPAT_VERSIONS=1.123.81,2.33.7 to choose.
 */
import { COMPAT_VERSIONS } from '../../scripts/n8n-env';

export const VERSIONS = (process.env.ERP_COMPAT_VERSIONS?.split(',') ?? [...COMPAT_VERSIONS]).map(
	(v) => v.trim(),
);
