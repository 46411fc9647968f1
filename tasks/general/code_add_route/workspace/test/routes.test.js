'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

const routes = require('../src/routes');
const { requireAuth } = require('../src/middleware/auth');

test('every route requires auth and exactly one scope', () => {
  for (const r of routes) {
    assert.strictEqual(r.auth[0], requireAuth, `${r.method} ${r.path}`);
    assert.strictEqual(r.auth.length, 2, `${r.method} ${r.path}`);
  }
});

test('every route has a handler', () => {
  for (const r of routes) assert.strictEqual(typeof r.handler, 'function', `${r.method} ${r.path}`);
});

test('docs/API.md lists exactly the routes in src/routes.js', () => {
  const md = fs.readFileSync(path.join(__dirname, '..', 'docs', 'API.md'), 'utf8');
  const documented = md.split('\n')
    .filter((l) => /^\| (GET|POST|PATCH|PUT|DELETE) /.test(l))
    .map((l) => l.split('|').map((c) => c.trim()).slice(1, 3).join(' '))
    .sort();
  const actual = routes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
  assert.deepStrictEqual(documented, actual);
});
