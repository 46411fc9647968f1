from decimal import Decimal

from shopkit.cart import Cart, LineItem
from shopkit.checkout import build_order_summary, free_shipping_gap
from shopkit.legacy import freight_quote


def make_cart(qty=1):
    return Cart(items=[LineItem("TENT-2P", Decimal("30.00"), qty, Decimal("2.0"))])


def test_summary_includes_shipping():
    assert build_order_summary(make_cart())["shipping"] == "7.15"


def test_free_shipping_gap():
    assert free_shipping_gap(make_cart(2)) == Decimal("15.00")


def test_freight_quote_uses_legacy_library():
    assert freight_quote(Decimal("100"), 1) == Decimal("130.59")
