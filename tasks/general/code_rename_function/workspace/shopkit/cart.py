from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from shopkit.shipping import calc_shipping_cost


@dataclass
class LineItem:
    sku: str
    unit_price: Decimal
    quantity: int
    weight_kg: Decimal


@dataclass
class Cart:
    zone: str = "domestic"
    items: list[LineItem] = field(default_factory=list)

    @property
    def subtotal(self) -> Decimal:
        return sum((i.unit_price * i.quantity for i in self.items), Decimal("0"))

    @property
    def weight_kg(self) -> Decimal:
        return sum((i.weight_kg * i.quantity for i in self.items), Decimal("0"))

    def shipping(self) -> Decimal:
        # calc_shipping_cost handles the free-shipping threshold itself.
        return calc_shipping_cost(self.subtotal, self.weight_kg, self.zone).cost

    def total(self) -> Decimal:
        return self.subtotal + self.shipping()
