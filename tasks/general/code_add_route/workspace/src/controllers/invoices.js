'use strict';
const db = require('../db');
const pdf = require('../pdf');

exports.list = async (req, res) => res.json(await db.invoices.list({ orgId: req.user.org, status: req.query.status }));

exports.get = async (req, res) => {
  const invoice = await db.invoices.find(req.user.org, req.params.id);
  if (!invoice) return res.status(404).json({ error: 'invoice not found' });
  return res.json(invoice);
};

exports.create = async (req, res) => res.status(201).json(await db.invoices.create(req.user.org, req.body));

exports.void = async (req, res) => res.json(await db.invoices.void(req.user.org, req.params.id, req.body.reason));

// Streams the rendered PDF. Wired up for the "Download PDF" button in the web app (LED-1412).
exports.downloadPdf = async (req, res) => {
  const invoice = await db.invoices.find(req.user.org, req.params.id);
  if (!invoice) return res.status(404).json({ error: 'invoice not found' });
  res.set('Content-Type', 'application/pdf');
  res.set('Content-Disposition', `attachment; filename="${invoice.number}.pdf"`);
  return pdf.render(invoice).pipe(res);
};
