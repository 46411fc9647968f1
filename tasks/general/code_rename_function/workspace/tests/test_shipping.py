from decimal import Decimal

import pytest

from shopkit.shipping import calc_shipping_cost


def test_domestic_free_over_threshold():
    assert calc_shipping_cost(Decimal("80.00"), Decimal("3")).cost == Decimal("0.00")


def test_domestic_below_threshold():
    assert calc_shipping_cost(Decimal("20.00"), Decimal("2")).cost == Decimal("7.15")


def test_canada_never_free():
    assert calc_shipping_cost(Decimal("500"), Decimal("1"), "canada").cost == Decimal("14.90")


def test_international_rounding():
    assert calc_shipping_cost(Decimal("10"), Decimal("0.333"), "international").cost == Decimal("25.91")


def test_unknown_zone():
    with pytest.raises(ValueError):
        calc_shipping_cost(Decimal("10"), Decimal("1"), "mars")
