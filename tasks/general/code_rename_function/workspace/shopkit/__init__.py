"""Trailhead storefront domain logic."""
from .shipping import calc_shipping_cost, ShippingQuote

__all__ = ["calc_shipping_cost", "ShippingQuote"]
