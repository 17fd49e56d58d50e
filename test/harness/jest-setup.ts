/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test set-up, not a node */
// Runs before each test file (jest's setupFiles). Node's global fetch lives outside the test
// file's realm: the objects its `json()` builds have another `Object.prototype`, and
// node:assert's deepStrictEqual then finds "no visual difference" but fails. undici's fetch
// (the same implementation) loaded inside the test file's realm builds plain objects of that realm.
import { fetch, FormData, Headers, Request, Response } from 'undici';

Object.assign(globalThis, { fetch, FormData, Headers, Request, Response });
