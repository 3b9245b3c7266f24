#!/usr/bin/env node
// tests/lab/s3-verify.js: a reverse proxy that checks AWS Signature
// Version 4 in front of s3rver, which (3.7.1) checks none.
//
// It recomputes the signature of every request from what arrived (method,
// path, query, the signed headers, x-amz-content-sha256) with the one
// access key it knows, and, for a signed payload, checks that the body's
// sha256 is the one the client signed.  A request that fails gets the
// error S3 gives, as an S3 XML error document, and never reaches s3rver:
//   403 AccessDenied               no Authorization header
//   400 AuthorizationHeaderMalformed  unparsable, or another region
//   403 InvalidAccessKeyId         an access key it does not know
//   403 RequestTimeTooSkewed       x-amz-date more than 15 minutes off
//   403 SignatureDoesNotMatch      the signature differs
//   400 XAmzContentSHA256Mismatch  the body is not what was signed
// A request that passes is forwarded without its Authorization header
// (s3rver would refuse the unknown access key; it serves anonymous
// requests) and the answer is passed back.  When s3rver is down, the
// answer is 503 ServiceUnavailable, as S3 gives when it wants a retry.
//
// Written for fleetmark's tests; Node.js's standard library only.
//
//   S3V_ACCESS_KEY_ID, S3V_SECRET_ACCESS_KEY, S3V_REGION   the key it checks
//   node s3-verify.js --listen 127.0.0.1:0 --upstream 127.0.0.1:PORT
//        [--port-file FILE] [--delay-ms N] [--max-keys N]
// --delay-ms holds every request that long before forwarding it (lets a
// test kill s3rver in the middle of a transfer).  --max-keys makes every
// ListObjectsV2 request that s3rver sees ask for at most N keys (after
// the signature was checked), so that small listings come in several
// pages and clients must follow continuation tokens.  One line per request on
// stdout: "METHOD PATH -> STATUS [CODE]"; no secret is ever printed.
'use strict';

const http = require('http');
const crypto = require('crypto');
const fs = require('fs');

const MAX_BODY = 256 * 1024 * 1024;
const MAX_SKEW_MS = 15 * 60 * 1000;

function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}

const accessKey = process.env.S3V_ACCESS_KEY_ID || '';
const secretKey = process.env.S3V_SECRET_ACCESS_KEY || '';
const region = process.env.S3V_REGION || 'us-east-1';
if (!accessKey || !secretKey) {
  console.error('s3-verify: set S3V_ACCESS_KEY_ID and S3V_SECRET_ACCESS_KEY');
  process.exit(2);
}
const [listenHost, listenPort] = arg('--listen', '127.0.0.1:0').split(':');
const [upHost, upPort] = arg('--upstream', '127.0.0.1:4568').split(':');
const portFile = arg('--port-file', '');
const delayMs = Number(arg('--delay-ms', '0')) || 0;
const maxKeys = Number(arg('--max-keys', '0')) || 0;

// The path and query to forward: max-keys forced on ListObjectsV2.
function upstreamPath(url) {
  const q = url.indexOf('?');
  if (!maxKeys || q < 0) return url;
  const params = url.slice(q + 1).split('&');
  if (!params.includes('list-type=2')) return url;
  return url.slice(0, q + 1) + params.filter((p) => !p.startsWith('max-keys=')).concat('max-keys=' + maxKeys).join('&');
}

const sha256 = (data) => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();

// RFC 3986 unreserved characters stay, every other byte is %XX.
function uriEncode(bytes, keepSlash) {
  let out = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

// Percent-decode to bytes; a malformed escape stays as it is.
function uriDecode(s) {
  const out = [];
  const raw = Buffer.from(s, 'latin1');
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === 0x25 && i + 2 < raw.length) {
      const h = parseInt(String.fromCharCode(raw[i + 1], raw[i + 2]), 16);
      if (!Number.isNaN(h) && /^[0-9A-Fa-f]{2}$/.test(String.fromCharCode(raw[i + 1], raw[i + 2]))) {
        out.push(h);
        i += 2;
        continue;
      }
    }
    out.push(raw[i]);
  }
  return Buffer.from(out);
}

function canonicalQuery(q) {
  if (!q) return '';
  return q.split('&').filter((p) => p.length > 0).map((p) => {
    const eq = p.indexOf('=');
    const name = eq < 0 ? p : p.slice(0, eq);
    const value = eq < 0 ? '' : p.slice(eq + 1);
    return [uriEncode(uriDecode(name), false), uriEncode(uriDecode(value), false)];
  }).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([n, v]) => n + '=' + v).join('&');
}

// All values of a header (rawHeaders keeps repeats), trimmed, joined by ','.
function headerValue(req, name) {
  const vals = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === name) vals.push(req.rawHeaders[i + 1].trim().replace(/\s+/g, ' '));
  }
  return vals.length ? vals.join(',') : null;
}

class S3Fail extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function xmlEscape(s) {
  return String(s).replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]);
}

function sendError(res, status, code, message, resource) {
  const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>' + xmlEscape(code) +
    '</Code><Message>' + xmlEscape(message) + '</Message><Resource>' + xmlEscape(resource) +
    '</Resource><RequestId>s3-verify</RequestId></Error>\n';
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

// Throws S3Fail when the request is not signed with our key.
function verify(req, body) {
  const auth = headerValue(req, 'authorization');
  if (!auth) throw new S3Fail(403, 'AccessDenied', 'Anonymous access is not allowed here');
  const m = /^AWS4-HMAC-SHA256 +Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request *, *SignedHeaders=([a-z0-9\-;]+) *, *Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) throw new S3Fail(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed');
  const [, akid, date8, scopeRegion, service, signedList, signature] = m;
  if (akid !== accessKey) {
    throw new S3Fail(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  }
  if (scopeRegion !== region || service !== 's3') {
    throw new S3Fail(400, 'AuthorizationHeaderMalformed',
      `the region '${scopeRegion}' (service '${service}') is wrong; expecting '${region}' (s3)`);
  }
  const amzDate = headerValue(req, 'x-amz-date');
  if (!amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate) || amzDate.slice(0, 8) !== date8) {
    throw new S3Fail(403, 'AccessDenied', 'x-amz-date missing, malformed or not the credential scope\'s date');
  }
  const when = Date.UTC(+amzDate.slice(0, 4), +amzDate.slice(4, 6) - 1, +amzDate.slice(6, 8),
    +amzDate.slice(9, 11), +amzDate.slice(11, 13), +amzDate.slice(13, 15));
  if (Math.abs(Date.now() - when) > MAX_SKEW_MS) {
    throw new S3Fail(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  }
  const signed = signedList.split(';');
  for (const h of ['host', 'x-amz-date', 'x-amz-content-sha256']) {
    if (!signed.includes(h)) throw new S3Fail(403, 'AccessDenied', `the header ${h} must be signed`);
  }
  const payloadHash = headerValue(req, 'x-amz-content-sha256');
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && !/^[0-9a-f]{64}$/.test(payloadHash || '')) {
    throw new S3Fail(400, 'InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a sha256');
  }
  const q = req.url.indexOf('?');
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const rawQuery = q < 0 ? '' : req.url.slice(q + 1);
  const lines = [];
  for (const h of signed) {
    const v = headerValue(req, h);
    if (v === null) throw new S3Fail(403, 'SignatureDoesNotMatch', `signed header ${h} is missing`);
    lines.push(h + ':' + v + '\n');
  }
  const creq = [req.method, uriEncode(uriDecode(rawPath), true), canonicalQuery(rawQuery),
    lines.join(''), signedList, payloadHash].join('\n');
  const scope = `${date8}/${region}/s3/aws4_request`;
  const sts = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(creq)].join('\n');
  let k = hmac('AWS4' + secretKey, date8);
  k = hmac(k, region);
  k = hmac(k, 's3');
  k = hmac(k, 'aws4_request');
  const want = hmac(k, sts);
  const got = Buffer.from(signature, 'hex');
  if (got.length !== want.length || !crypto.timingSafeEqual(got, want)) {
    // as S3 does, tell what was signed here (no secret in it), in the log
    console.log('canonical request:\n' + creq.replace(/^/gm, '  '));
    throw new S3Fail(403, 'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && sha256(body) !== payloadHash) {
    throw new S3Fail(400, 'XAmzContentSHA256Mismatch',
      'The provided \'x-amz-content-sha256\' header does not match what was computed.');
  }
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'expect', 'authorization',
  'proxy-connection', 'upgrade', 'te', 'trailer', 'content-length']);

function forward(req, res, body, done) {
  const headers = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const n = req.rawHeaders[i].toLowerCase();
    if (!HOP.has(n)) headers[n] = headers[n] ? headers[n] + ',' + req.rawHeaders[i + 1] : req.rawHeaders[i + 1];
  }
  headers['content-length'] = String(body.length);
  const up = http.request({ host: upHost, port: +upPort, method: req.method, path: upstreamPath(req.url), headers }, (ur) => {
    const out = {};
    for (const [n, v] of Object.entries(ur.headers)) if (!['connection', 'keep-alive', 'transfer-encoding'].includes(n)) out[n] = v;
    // Logged before a byte of the answer goes back, so that a client which
    // has its answer finds the request in the log (tests read it at once).
    done(ur.statusCode, '');
    res.writeHead(ur.statusCode, out);
    ur.pipe(res);
  });
  up.on('error', (e) => {
    if (!res.headersSent) sendError(res, 503, 'ServiceUnavailable', 'upstream: ' + e.code, req.url);
    else res.destroy();
    done(503, 'ServiceUnavailable');
  });
  up.end(body);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  let tooBig = false;
  req.on('data', (c) => {
    size += c.length;
    if (size > MAX_BODY) tooBig = true;
    else chunks.push(c);
  });
  req.on('end', () => {
    const log = (status, code) => console.log(`${req.method} ${req.url} -> ${status}${code ? ' ' + code : ''}`);
    if (tooBig) {
      sendError(res, 400, 'EntityTooLarge', 'body over the test proxy\'s limit', req.url);
      log(400, 'EntityTooLarge');
      return;
    }
    const body = Buffer.concat(chunks);
    try {
      verify(req, body);
    } catch (e) {
      if (!(e instanceof S3Fail)) throw e;
      sendError(res, e.status, e.code, e.message, req.url);
      log(e.status, e.code);
      return;
    }
    setTimeout(() => forward(req, res, body, log), delayMs);
  });
});

server.listen(+listenPort, listenHost, () => {
  const port = server.address().port;
  if (portFile) {
    fs.writeFileSync(portFile + '.tmp', port + '\n');
    fs.renameSync(portFile + '.tmp', portFile);
  }
  console.log(`s3-verify: listening on ${listenHost}:${port}, forwarding to ${upHost}:${upPort}, region ${region}`);
});
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  });
}
