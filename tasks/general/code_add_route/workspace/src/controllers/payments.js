'use strict';
const db = require('../db');

exports.list = async (req, res) => res.json(await db.payments.list({ orgId: req.user.org, invoiceId: req.query.invoice_id }));

exports.refund = async (req, res) => res.json(await db.payments.refund(req.user.org, req.params.id, req.body.amount));
