#!/usr/bin/env node
// A stateless Streamable-HTTP front for a stdio MCP server, so that the
// conformance suite's 2026-07-28 scenarios (HTTP only) reach scx-mcp.
// ../shared/tools/mcp-stdio-http-bridge.cjs puts SDK v1's session transport
// in front, which refuses requests without a session id; 2026-07-28 has no
// sessions.  Node's standard library only, no npm package.
//
// One child process serves every request, one request at a time (scx-mcp
// answers in order), so the notifications that arrive between a request and
// its response belong to it and go back on the same reply as an SSE stream.
// subscriptions/listen gets a stream of its own until the client hangs up,
// then the child gets notifications/cancelled for it.
//
// What the bridge decides is the HTTP layer of the 2026-07-28 transport only:
// the MCP-Protocol-Version header must equal _meta's version (-32020), and
// the status of an error (404 for -32601, 400 for the request errors).  The
// JSON-RPC answers, codes and data are the server's.
//
// usage: node mcp-stateless-bridge.cjs --url-file F -- server-cmd [args...]
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const { spawn } = require('node:child_process');

const argv = process.argv.slice(2);
let urlFile = null;
while (argv.length && argv[0] !== '--') {
	const a = argv.shift();
	if (a === '--url-file') urlFile = argv.shift();
	else { console.error(`bridge: unknown option ${a}`); process.exit(2); }
}
argv.shift();
if (!argv.length) {
	console.error('usage: mcp-stateless-bridge.cjs --url-file F -- cmd [args...]');
	process.exit(2);
}

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_SUB = 'io.modelcontextprotocol/subscriptionId';
const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
child.on('exit', (code) => { console.error(`bridge: server exited (${code})`); process.exit(1); });

let nextId = 1;
const queue = [];		// requests waiting for the child, oldest first
let current = null;		// the request the child is answering
const listens = new Map();	// child-side id -> { res, id }

function status(msg) {
	if (!msg.error) return 200;
	if (msg.error.code === -32601) return 404;
	if ([-32700, -32600, -32602, -32020, -32021, -32022].includes(msg.error.code)) return 400;
	return 500;
}

function reply(res, msg, notes) {
	const code = status(msg);
	if (!notes.length) {
		res.writeHead(code, { 'Content-Type': 'application/json' });
		return res.end(JSON.stringify(msg));
	}
	res.writeHead(code, { 'Content-Type': 'text/event-stream' });
	for (const n of [...notes, msg]) res.write(`event: message\ndata: ${JSON.stringify(n)}\n\n`);
	res.end();
}

function pump() {
	if (current || !queue.length) return;
	current = queue.shift();
	current.notes = [];
	child.stdin.write(JSON.stringify({ ...current.msg, id: current.cid }) + '\n');
}

let buf = '';
child.stdout.on('data', (chunk) => {
	buf += chunk;
	let nl;
	while ((nl = buf.indexOf('\n')) >= 0) {
		const line = buf.slice(0, nl);
		buf = buf.slice(nl + 1);
		let msg;
		try { msg = JSON.parse(line); } catch { console.error(`bridge: not JSON: ${line}`); continue; }
		const sub = msg.params && msg.params._meta && msg.params._meta[META_SUB];
		if (msg.method && sub !== undefined && listens.has(sub)) {
			const l = listens.get(sub);
			msg.params._meta[META_SUB] = l.id;
			l.res.write(`event: message\ndata: ${JSON.stringify(msg)}\n\n`);
		} else if (msg.method && current) {
			current.notes.push(msg);
		} else if (msg.method) {
			console.error(`bridge: notification outside a request: ${line}`);
		} else if (listens.has(msg.id)) {	// a listen refused
			const l = listens.get(msg.id);
			l.res.end(`event: message\ndata: ${JSON.stringify({ ...msg, id: l.id })}\n\n`);
		} else if (current && msg.id === current.cid) {
			reply(current.res, { ...msg, id: current.msg.id }, current.notes);
			current = null;
			pump();
		} else {
			console.error(`bridge: response to no request: ${line}`);
		}
	}
});

function reject(res, id, httpCode, code, message) {
	res.writeHead(httpCode, { 'Content-Type': 'application/json' });
	res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}

const server = http.createServer((req, res) => {
	if (req.method !== 'POST') {
		res.writeHead(405, { Allow: 'POST' });
		return res.end();
	}
	let body = '';
	req.on('data', (c) => { body += c; });
	req.on('end', () => {
		let msg;
		try { msg = JSON.parse(body); } catch { return reject(res, null, 400, -32700, 'Parse error'); }
		if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
			return reject(res, null, 400, -32600, 'one JSON-RPC message per POST');
		const header = req.headers['mcp-protocol-version'];
		const meta = msg.params && msg.params._meta;
		const version = meta && meta[META_VERSION];
		if (header !== undefined && version !== undefined && header !== version)
			return reject(res, msg.id ?? null, 400, -32020,
				`MCP-Protocol-Version header ${header} does not match _meta ${version}`);
		if (msg.id === undefined) {		// a notification
			if (msg.method === 'notifications/cancelled') {
				for (const [cid, l] of listens)
					if (l.id === msg.params.requestId) msg.params.requestId = cid;
			}
			child.stdin.write(JSON.stringify(msg) + '\n');
			res.writeHead(202);
			return res.end();
		}
		const cid = nextId++;
		if (msg.method === 'subscriptions/listen') {
			res.writeHead(200, { 'Content-Type': 'text/event-stream' });
			listens.set(cid, { res, id: msg.id });
			res.on('close', () => {
				listens.delete(cid);
				child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled',
					params: { requestId: cid } }) + '\n');
			});
			return child.stdin.write(JSON.stringify({ ...msg, id: cid }) + '\n');
		}
		queue.push({ msg, cid, res });
		pump();
	});
});
// Idle connections are closed by the client, not here: with node's default
// (5 s) the server may close a connection just as the client, whose own limit
// is a second or two shorter, reuses it, and on a loaded machine late timers
// make that moment wide; the request sent then fails ("fetch failed").
server.keepAliveTimeout = 10 * 60 * 1000;
server.listen(0, '127.0.0.1', () => {
	const url = `http://127.0.0.1:${server.address().port}/mcp`;
	if (urlFile) fs.writeFileSync(urlFile, url);
	console.error(`bridge: ${url}`);
});
