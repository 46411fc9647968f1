"""Bridge to the vendored legacy carrier-rate library, still used for freight orders."""
from decimal import Decimal

from third_party.legacy_rates.rates import calc_shipping_cost as legacy_calc_shipping_cost


def freight_quote(weight_kg: Decimal, pallets: int) -> Decimal:
    # The legacy library works in pounds and returns a float.
    return Decimal(str(legacy_calc_shipping_cost(float(weight_kg) * 2.20462, pallets))).quantize(Decimal("0.01"))
