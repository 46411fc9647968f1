"""Checks /workspace/out/department_cost.csv against the expected figures with a tolerance of
one cent per department, and that it covers exactly the expected departments."""
import csv
import sys

with open("/judge/expected_department_cost.csv") as f:
    expected = {r["department"]: r for r in csv.DictReader(f)}
try:
    with open("/workspace/out/department_cost.csv") as f:
        got = {r["department"]: r for r in csv.DictReader(f)}
except (OSError, KeyError) as e:
    sys.exit(f"no usable out/department_cost.csv: {e}")
if set(got) != set(expected):
    sys.exit(f"departments {sorted(got)} != {sorted(expected)}")
for dept, want in expected.items():
    row = got[dept]
    try:
        cost = float(row["monthly_cost_eur"])
        heads = int(row["headcount"])
    except (KeyError, TypeError, ValueError) as e:
        sys.exit(f"{dept}: unreadable row {row}: {e}")
    if abs(cost - float(want["monthly_cost_eur"])) > 0.01 or heads != int(want["headcount"]):
        sys.exit(f"{dept}: got {heads} / {cost:.2f}, want {want['headcount']} / {want['monthly_cost_eur']}")
print("ok")
