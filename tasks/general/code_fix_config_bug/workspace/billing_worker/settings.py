"""Load the worker's settings for one environment."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml

CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"
STANDARD_REDIS_PORTS = {6379, 6380}


@dataclass(frozen=True)
class Settings:
    env: str
    redis_host: str
    redis_port: int
    redis_db: int
    queue: str
    concurrency: int
    smtp_host: str

    @property
    def redis_url(self) -> str:
        return f"redis://{self.redis_host}:{self.redis_port}/{self.redis_db}"


def load(env: str | None = None, path: Path | None = None) -> Settings:
    env = env or os.environ.get("BILLING_ENV", "development")
    path = path or CONFIG_DIR / f"{env}.yaml"
    raw = yaml.safe_load(path.read_text())
    return Settings(
        env=env,
        redis_host=raw["redis"]["host"],
        redis_port=int(raw["redis"]["port"]),
        redis_db=int(raw["redis"].get("db", 0)),
        queue=raw["worker"]["queue"],
        concurrency=int(raw["worker"].get("concurrency", 2)),
        smtp_host=raw["mail"]["smtp_host"],
    )


def lint(settings: Settings) -> list[str]:
    """Warnings for settings that are legal but almost certainly wrong."""
    warnings = []
    if settings.redis_port not in STANDARD_REDIS_PORTS:
        warnings.append(
            f"suspicious redis port {settings.redis_port} (standard: 6379, TLS proxy: 6380)"
        )
    if settings.queue != "invoices":
        warnings.append(f"queue {settings.queue!r}: producers publish to 'invoices'")
    return warnings
