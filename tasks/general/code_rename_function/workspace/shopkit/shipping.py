"""Shipping cost calculation."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, ROUND_HALF_UP

FREE_SHIPPING_THRESHOLD = Decimal("75.00")
ZONE_BASE = {"domestic": Decimal("4.95"), "canada": Decimal("12.50"), "international": Decimal("24.00")}
PER_KG = {"domestic": Decimal("1.10"), "canada": Decimal("2.40"), "international": Decimal("5.75")}


@dataclass(frozen=True)
class ShippingQuote:
    zone: str
    weight_kg: Decimal
    cost: Decimal


def calc_shipping_cost(subtotal: Decimal, weight_kg: Decimal, zone: str = "domestic") -> ShippingQuote:
    """Return the shipping quote for an order.

    Domestic orders at or above FREE_SHIPPING_THRESHOLD ship free. Otherwise the cost is the
    zone's base price plus a per-kilogram rate, rounded to cents.
    """
    if zone not in ZONE_BASE:
        raise ValueError(f"unknown shipping zone: {zone}")
    if zone == "domestic" and subtotal >= FREE_SHIPPING_THRESHOLD:
        return ShippingQuote(zone, weight_kg, Decimal("0.00"))
    cost = ZONE_BASE[zone] + PER_KG[zone] * weight_kg
    return ShippingQuote(zone, weight_kg, cost.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
