"""Entry point: python -m billing_worker.worker"""
import logging

import redis

from . import settings as settings_mod
from .render import render_and_send

log = logging.getLogger("billing_worker")


def main() -> None:
    s = settings_mod.load()
    for w in settings_mod.lint(s):
        log.warning(w)
    conn = redis.Redis.from_url(s.redis_url)
    conn.ping()
    log.info("consuming from %r on %s with %d workers", s.queue, s.redis_url, s.concurrency)
    while True:
        _, job = conn.blpop(s.queue)
        render_and_send(job, smtp_host=s.smtp_host)


if __name__ == "__main__":
    main()
