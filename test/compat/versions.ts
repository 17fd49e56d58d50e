/* eslint-disable @n8n/community-nodes/no-restricted-globals -- drives n8n from outside, not a node */
/**
 * The n8n versions a compat file runs on: its jest project's version (jest.compat.config.js runs
 * test/compat once per version, side by side), or, run outside those projects, COMPAT_VERSIONS
 * (scripts/n8n-env.ts) or ERP_COMPAT_VERSIONS=1.123.81,2.33.7 to choose.
 */
import { COMPAT_VERSIONS } from '../../scripts/n8n-env';

const projectVersion = (globalThis as { ERP_COMPAT_VERSION?: string }).ERP_COMPAT_VERSION;

export const VERSIONS = projectVersion
	? [projectVersion]
	: (process.env.ERP_COMPAT_VERSIONS?.split(',') ?? [...COMPAT_VERSIONS]).map((v) => v.trim());
