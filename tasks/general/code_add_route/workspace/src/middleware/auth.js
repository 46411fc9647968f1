'use strict';
const jwt = require('jsonwebtoken');

function requireAuth(req, res, next) {
  const header = req.get('authorization') || '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : null;
  if (!token) return res.status(401).json({ error: 'missing bearer token' });
  try {
    req.user = jwt.verify(token, process.env.JWT_PUBLIC_KEY, { algorithms: ['RS256'] });
    return next();
  } catch (err) {
    return res.status(401).json({ error: 'invalid token' });
  }
}

function requireScope(scope) {
  return function scopeCheck(req, res, next) {
    const scopes = (req.user && req.user.scopes) || [];
    if (!scopes.includes(scope)) return res.status(403).json({ error: `missing scope ${scope}` });
    return next();
  };
}

module.exports = { requireAuth, requireScope };
