//! inventory (port 9108): products by category, purchase orders (never checked).

use super::prelude::*;

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "inventory",
    prefix: None,
    port: 9108,
    fixture: Fixture::Records {
        var: "INVENTORY_FIXTURES",
        default: "tasks/T019zh_inventory_check/fixtures/inventory/products.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "product_id",
        noun: "Product",
    }),
    derive: None,
    lists: &["orders"],
    endpoints: &[
        Endpoint {
            path: "/inventory/products",
            body: OPTIONAL,
            fields: &[Field::opt("category", Ty::Str)],
            op: Op::List(ListOp {
                key: "products",
                filters: &[Filter::EqIfSet {
                    param: "category",
                    field: "category",
                }],
                project: None,
                defaults: &[],
                limit: None,
            }),
        },
        Endpoint {
            path: "/inventory/products/get",
            body: REQUIRED,
            fields: &[Field::req("product_id", Ty::Str)],
            op: Op::Get,
        },
        Endpoint {
            path: "/inventory/orders/create",
            body: REQUIRED,
            fields: &[
                Field::req("product_id", Ty::Str),
                Field::req("quantity", Ty::Int),
                Field::opt("supplier", Ty::Str),
            ],
            op: Op::Record(RecordOp {
                list: "orders",
                status: "created",
                key: "order",
            }),
        },
    ],
    health: None,
};
