import json
import smtplib


def render_and_send(raw_job: bytes, smtp_host: str) -> None:
    job = json.loads(raw_job)
    body = f"Invoice {job['invoice_id']}: {job['amount']} {job['currency']} due {job['due_date']}"
    with smtplib.SMTP(smtp_host) as smtp:
        smtp.sendmail("billing@ledgerly.io", [job["email"]], body)
