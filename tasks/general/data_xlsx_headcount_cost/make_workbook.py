"""Writes workspace/hr/headcount_2026.xlsx and judge/expected_department_cost.csv.

Deterministic: fixed seed, fixed document properties, zip entries re-stamped to 1980-01-01, so
re-running gives byte-identical files. Needs openpyxl (native Python).
"""
import datetime
import io
import random
import re
import zipfile
from pathlib import Path

import openpyxl

HERE = Path(__file__).parent
random.seed(2026)
DEPARTMENTS = ["Engineering", "Sales", "Support", "Finance", "People"]
ONCOST = {"Engineering": 0.21, "Sales": 0.24, "Support": 0.19, "Finance": 0.22, "People": 0.20}
FIRST = ["Ana", "Ben", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jae", "Kai", "Lea",
         "Mo", "Nia", "Oto", "Pia", "Quin", "Rui", "Sol", "Tam", "Uma", "Vik", "Wen", "Xia", "Yul", "Zoe"]
LAST = ["Silva", "Novak", "Okafor", "Lind", "Rossi", "Sato", "Haddad", "Berg", "Costa", "Kowal"]

rows = []
for i in range(60):
    dept = DEPARTMENTS[i % 5] if i < 50 else random.choice(DEPARTMENTS)
    fte = random.choice([1.0, 1.0, 1.0, 0.8, 0.5, 0.6])
    salary = random.randrange(42000, 118000, 500)
    start = datetime.date(2019 + random.randint(0, 6), random.randint(1, 12), random.randint(1, 28))
    status = "active" if i % 9 else random.choice(["leaver", "on notice", "active"])
    if i % 13 == 4:
        status = "leaver"
    name = f"{FIRST[i % 26]} {LAST[(i * 7) % 10]}"
    rows.append((f"E{1000 + i}", name, dept, fte, salary, start, status))

wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Employees"
ws.append(["employee_id", "name", "department", "fte", "annual_salary_eur", "start_date", "status"])
for r in rows:
    ws.append(list(r))
for cell in ws["F"][1:]:
    cell.number_format = "yyyy-mm-dd"
rates = wb.create_sheet("Rates")
rates.append(["department", "employer_oncost_pct"])
for d in DEPARTMENTS:
    rates.append([d, round(ONCOST[d] * 100, 1)])
old = wb.create_sheet("Employees (2025 archive)")
old.append(["employee_id", "name", "department", "fte", "annual_salary_eur", "start_date", "status"])
for r in rows[:40]:
    old.append([r[0], r[1], r[2], 1.0, r[4] - 3000, r[5], "active"])
old.sheet_state = "hidden"
stamp = datetime.datetime(2026, 1, 5, 9, 0, 0)
wb.properties.created = stamp
wb.properties.modified = stamp
wb.properties.creator = "people-ops"
buf = io.BytesIO()
wb.save(buf)

out = io.BytesIO()
with zipfile.ZipFile(buf) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        data = src.read(info.filename)
        if info.filename == "docProps/core.xml":
            # openpyxl stamps the save time as "modified"; pin it.
            data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2026-01-05T09:00:00Z", data)
        fixed = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
        fixed.compress_type = zipfile.ZIP_DEFLATED
        dst.writestr(fixed, data)
(HERE / "workspace/hr").mkdir(parents=True, exist_ok=True)
(HERE / "workspace/hr/headcount_2026.xlsx").write_bytes(out.getvalue())

# Expected: active employees only ("on notice" still count: they are employed), monthly cost =
# fte * salary * (1 + oncost) / 12, per department, sorted by cost, highest first.
agg = {}
for emp, name, dept, fte, salary, start, status in rows:
    if status == "leaver":
        continue
    a = agg.setdefault(dept, [0, 0.0, 0.0])
    a[0] += 1
    a[1] += fte
    a[2] += fte * salary * (1 + ONCOST[dept]) / 12
lines = ["department,headcount,fte,monthly_cost_eur"]
for dept, (n, fte, cost) in sorted(agg.items(), key=lambda kv: -kv[1][2]):
    lines.append(f"{dept},{n},{fte:.1f},{cost:.2f}")
(HERE / "judge/expected_department_cost.csv").write_text("\n".join(lines) + "\n")
total = sum(a[2] for a in agg.values())
print("\n".join(lines))
print(f"total {total:.2f}; leavers {sum(1 for r in rows if r[6] == 'leaver')}; on notice {sum(1 for r in rows if r[6] == 'on notice')}")
