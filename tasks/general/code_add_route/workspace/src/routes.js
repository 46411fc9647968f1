'use strict';
// The API's route table. Order within a resource group: reads first, then writes.
const { requireAuth, requireScope } = require('./middleware/auth');
const customers = require('./controllers/customers');
const invoices = require('./controllers/invoices');
const payments = require('./controllers/payments');

module.exports = [
  // Customers
  { method: 'get',  path: '/api/v2/customers',          handler: customers.list,   auth: [requireAuth, requireScope('customers:read')] },
  { method: 'get',  path: '/api/v2/customers/:id',      handler: customers.get,    auth: [requireAuth, requireScope('customers:read')] },
  { method: 'patch', path: '/api/v2/customers/:id',     handler: customers.update, auth: [requireAuth, requireScope('customers:write')] },

  // Invoices
  { method: 'get',  path: '/api/v2/invoices',           handler: invoices.list,    auth: [requireAuth, requireScope('invoices:read')] },
  { method: 'get',  path: '/api/v2/invoices/:id',       handler: invoices.get,     auth: [requireAuth, requireScope('invoices:read')] },
  { method: 'post', path: '/api/v2/invoices',           handler: invoices.create,  auth: [requireAuth, requireScope('invoices:write')] },
  { method: 'post', path: '/api/v2/invoices/:id/void',  handler: invoices.void,    auth: [requireAuth, requireScope('invoices:write')] },

  // Payments
  { method: 'get',  path: '/api/v2/payments',           handler: payments.list,    auth: [requireAuth, requireScope('payments:read')] },
  { method: 'post', path: '/api/v2/payments/:id/refund', handler: payments.refund, auth: [requireAuth, requireScope('payments:write')] },
];
