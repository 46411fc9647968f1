from __future__ import annotations

from decimal import Decimal

from . import shipping
from .cart import Cart


def build_order_summary(cart: Cart) -> dict:
    quote = shipping.calc_shipping_cost(cart.subtotal, cart.weight_kg, cart.zone)
    return {
        "subtotal": str(cart.subtotal),
        "shipping": str(quote.cost),
        "zone": quote.zone,
        "total": str(cart.subtotal + quote.cost),
    }


def free_shipping_gap(cart: Cart) -> Decimal:
    """How much more the customer must add to ship free (domestic only)."""
    if cart.zone != "domestic":
        return Decimal("0")
    return max(shipping.FREE_SHIPPING_THRESHOLD - cart.subtotal, Decimal("0"))
