'use strict';
const express = require('express');
const routes = require('./routes');

const app = express();
app.use(express.json());
app.get('/healthz', (req, res) => res.json({ ok: true }));
for (const r of routes) app[r.method](r.path, ...r.auth, r.handler);
app.use((req, res) => res.status(404).json({ error: 'not found' }));

if (require.main === module) app.listen(process.env.PORT || 3000);
module.exports = app;
