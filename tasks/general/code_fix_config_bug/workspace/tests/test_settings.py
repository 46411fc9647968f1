from pathlib import Path

import pytest

from billing_worker import settings

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("env", ["development", "staging", "production"])
def test_every_env_loads(env):
    s = settings.load(env)
    assert s.redis_url.startswith("redis://")


@pytest.mark.parametrize("env", ["development", "staging", "production"])
def test_every_env_is_lint_clean(env):
    assert settings.lint(settings.load(env)) == []


def test_lint_flags_port_typo():
    s = settings.load("test", path=FIXTURES / "bad_redis_port.yaml")
    assert s.redis_port == 6739
    assert any("suspicious redis port 6739" in w for w in settings.lint(s))


def test_production_redis_url():
    assert settings.load("production").redis_url == "redis://redis-prod.internal:6379/3"
