/* eslint-disable @n8n/community-nodes/no-restricted-globals */
// `npm run sandbox [-- --port 4010 --host 127.0.0.1 --articles 250 --seed 1 --max-page-size 100
//   --rate-limit-headers ietf-fields|draft7|structured|x-ratelimit|none|bare]`
// and the variants of conventions.ts, one flag per option: `--cursor-param starting_after
// --page-size-param per_page --signature hmac-hex --event-type-path event ...`
import type { SandboxConventions } from './conventions';
import { DEMO_KEYS, DEMO_OAUTH_CLIENT, startSandbox } from './index';
import { RATE_LIMIT_HEADER_DIALECTS } from './rateLimitHeaders';
import type { RateLimitHeaderDialect } from './rateLimitHeaders';

/** `--cursor-param` -> cursorParam, and so on: every option of SandboxConventions. */
const CONVENTION_FLAGS: Record<string, keyof SandboxConventions> = {
	'--cursor-param': 'cursorParam',
	'--page-size-param': 'pageSizeParam',
	'--items-path': 'itemsPath',
	'--next-cursor-path': 'nextCursorPath',
	'--signature': 'signature',
	'--signature-header': 'signatureHeader',
	'--signature-algorithm': 'signatureAlgorithm',
	'--signature-prefix': 'signaturePrefix',
	'--timestamp-header': 'timestampHeader',
	'--event-type-path': 'eventTypePath',
	'--event-id-path': 'eventIdPath',
	'--event-data-path': 'eventDataPath',
	'--event-type-header': 'eventTypeHeader',
};
const CHOICES: Partial<Record<keyof SandboxConventions, string[]>> = {
	signature: ['standard-webhooks', 'hmac-hex', 'hmac-base64'],
	signatureAlgorithm: ['sha256', 'sha512', 'sha1'],
};

function parseArgs(argv: string[]) {
	const out: {
		port: number;
		host: string;
		articles?: number;
		seed?: number;
		maxPageSize?: number;
		rateLimitHeaders?: RateLimitHeaderDialect;
		conventions?: Partial<SandboxConventions>;
	} = {
		port: 4010,
		host: '127.0.0.1',
	};
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--help') {
			process.stdout.write(
				`Options: --port, --host, --articles, --seed, --max-page-size, --rate-limit-headers, ${Object.keys(CONVENTION_FLAGS).join(', ')}\n` +
					`  --signature: ${CHOICES.signature?.join(' | ')}; --signature-algorithm: ${CHOICES.signatureAlgorithm?.join(' | ')}\n` +
					`  --rate-limit-headers: ${RATE_LIMIT_HEADER_DIALECTS.join(' | ')}\n` +
					'  (see sandbox/conventions.ts and sandbox/README.md)\n',
			);
			process.exit(0);
		}
		const [flag, inline] = argv[i].split('=', 2);
		const value = inline ?? argv[++i];
		const num = () => {
			const n = Number(value);
			if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer`);
			return n;
		};
		if (flag === '--port') out.port = num();
		else if (flag === '--host') out.host = value;
		else if (flag === '--articles') out.articles = num();
		else if (flag === '--seed') out.seed = num();
		else if (flag === '--max-page-size') {
			out.maxPageSize = num();
			if (out.maxPageSize < 1 || out.maxPageSize > 100) throw new Error(`${flag} must be 1 to 100`);
		} else if (flag === '--rate-limit-headers') {
			if (!RATE_LIMIT_HEADER_DIALECTS.includes(value as RateLimitHeaderDialect))
				throw new Error(`${flag} must be one of ${RATE_LIMIT_HEADER_DIALECTS.join(', ')}`);
			out.rateLimitHeaders = value as RateLimitHeaderDialect;
		} else if (flag in CONVENTION_FLAGS) {
			const option = CONVENTION_FLAGS[flag];
			const choices = CHOICES[option];
			if (value === undefined || (value === '' && option !== 'signaturePrefix'))
				throw new Error(`${flag} needs a value`);
			if (choices && !choices.includes(value))
				throw new Error(`${flag} must be one of ${choices.join(', ')}`);
			out.conventions = { ...out.conventions, [option]: value };
		} else
			throw new Error(
				`Unknown option ${flag} (use --port, --host, --articles, --seed, --max-page-size, --rate-limit-headers, ${Object.keys(CONVENTION_FLAGS).join(', ')})`,
			);
	}
	return out;
}

async function main() {
	const args = parseArgs(process.argv.slice(2));
	const sandbox = await startSandbox({ ...args, quiet: false });
	process.stdout.write(
		[
			`ERP sandbox listening`,
			`  Base URL:          ${sandbox.baseUrl}`,
			`  Demo keys:         ${DEMO_KEYS.full} (all scopes)`,
			`                     ${DEMO_KEYS.readonly} (read scopes)`,
			`  OAuth2:            ${sandbox.url}/oauth/authorize, ${sandbox.url}/oauth/token`,
			`  Demo OAuth client: client_id ${DEMO_OAUTH_CLIENT.clientId}, client_secret ${DEMO_OAUTH_CLIENT.clientSecret}`,
			`  Control API:       ${sandbox.url}/_sandbox/ (see sandbox/README.md)`,
			...(args.conventions
				? [`  Conventions:       ${JSON.stringify(args.conventions)} (the rest as the contract)`]
				: []),
			'',
		].join('\n'),
	);
	const stop = () => {
		void sandbox.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((e: Error) => {
	process.stderr.write(`${e.message}\n`);
	process.exit(1);
});
