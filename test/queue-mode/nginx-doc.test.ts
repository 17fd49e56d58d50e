/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- reads the docs, not a node */
/**
 * The Production guide's nginx configuration is the one `npm run test:queue` runs
 * (scripts/nginx.ts, `webhookSite`), with the guide's addresses: line for line.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from '@jest/globals';

import { DOC_SITE, webhookSite } from '../../scripts/nginx';

const GUIDE = path.join(__dirname, '../../docs/production-recipes.md');

test('docs/production-recipes.md shows the nginx configuration the queue-mode test uses, line for line', () => {
	const guide = fs.readFileSync(GUIDE, 'utf8');
	const block = /<!-- nginx: webhookSite\(DOC_SITE\) -->\n+```nginx\n([\s\S]*?)```/.exec(guide);
	assert.ok(block, 'the guide has the nginx block after its marker');
	assert.equal(block[1], webhookSite(DOC_SITE));
});
