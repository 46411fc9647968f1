from decimal import Decimal, InvalidOperation

from shopkit import calc_shipping_cost


def quote_shipping(request: dict) -> tuple[int, dict]:
    """POST /api/shipping/quote  {subtotal, weight_kg, zone}"""
    try:
        subtotal = Decimal(str(request["subtotal"]))
        weight = Decimal(str(request["weight_kg"]))
    except (KeyError, InvalidOperation):
        return 400, {"error": "subtotal and weight_kg are required numbers"}
    try:
        quote = calc_shipping_cost(subtotal, weight, request.get("zone", "domestic"))
    except ValueError as exc:
        return 422, {"error": str(exc)}
    return 200, {"zone": quote.zone, "cost": str(quote.cost)}
