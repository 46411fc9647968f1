# legacy_rates 0.9.4 -- vendored verbatim from the upstream release. DO NOT EDIT.
PALLET_FEE = 38.0
RATE_PER_LB = 0.42


def calc_shipping_cost(weight_lb, pallets=1):
    """Freight cost in USD for `pallets` pallets totalling `weight_lb` pounds."""
    return round(PALLET_FEE * pallets + RATE_PER_LB * weight_lb, 2)


def calc_shipping_cost_table(weights, pallets=1):
    return [calc_shipping_cost(w, pallets) for w in weights]
