import { test } from '@jest/globals';
import { useErpTestEnv } from './setup';

const env = useErpTestEnv();
test('probe', async () => {
	console.log(await (await fetch(`${env.sandbox.url}/_sandbox/config`, {method:'POST', headers:{'content-type':'application/json'}, body: JSON.stringify({ rateLimit: { limit: 1, windowSeconds: 3600 } })})).text());
	for (let i = 0; i < 3; i++) {
		const t = Date.now();
		const r = await env.run({ resource: 'client', operation: 'findOrCreate', email: 'x@shop.example', nom: 'X', additionalFields: {} }, { continueOnFail: true, workflowId: 'w1' });
		console.log(i, Date.now() - t, JSON.stringify(r.output('ERP')));
	}
}, 600000);
