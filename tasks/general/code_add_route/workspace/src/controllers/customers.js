'use strict';
const db = require('../db');

exports.list = async (req, res) => res.json(await db.customers.list({ orgId: req.user.org }));

exports.get = async (req, res) => {
  const customer = await db.customers.find(req.user.org, req.params.id);
  if (!customer) return res.status(404).json({ error: 'customer not found' });
  return res.json(customer);
};

exports.update = async (req, res) => res.json(await db.customers.update(req.user.org, req.params.id, req.body));
