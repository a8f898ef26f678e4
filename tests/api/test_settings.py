"""Settings: one table of every environment setting, each read by the layer that uses it."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from origin_api.runtime import Origin
from origin_api.settings import OWN, TABLE, Settings
from origin_store import Settings as StoreSettings
from origin_store import settings as store_settings
from origin_store.errors import BadSetting

#: A value other than the default for every setting, and where it shows in `Settings`.
CHANGED = {
    "ORIGIN_HOME": ("/elsewhere/origin", "home", Path("/elsewhere/origin")),
    "ORIGIN_MAP_SIZE": ("4096", "map_size", 4096),
    "ORIGIN_DEVICE": ("desk", "device", "desk"),
    "ORIGIN_WATCH_INTERVAL_MS": ("0", "watch_interval_ms", 0),
    "ORIGIN_SEARCH_INGEST_INTERVAL_MS": ("5", "search_ingest_interval_ms", 5),
    "ORIGIN_CLI_LINGER_S": ("5", "cli_linger_s", 5),
    "ORIGIN_MAPPED_BUDGET_MB": ("64", "mapped_budget_mb", 64),
    "ORIGIN_HUB_HOST": ("0.0.0.0", "hub_host", "0.0.0.0"),
    "ORIGIN_HUB_PORT": ("9999", "hub_port", 9999),
    "ORIGIN_HUB_ALLOWED_HOSTS": (
        " hub.lan, ,10.0.0.2 ",
        "hub_allowed_hosts",
        ("hub.lan", "10.0.0.2"),
    ),
    "ORIGIN_HUB_MAX_BODY": ("10", "hub_max_body", 10),
    "ORIGIN_HUB_REQUEST_TIMEOUT_MS": ("7", "hub_request_timeout_ms", 7),
    "ORIGIN_HUB_RATE_LIMIT": (" 5/s ", "hub_rate_limit", "5/s"),
    "ORIGIN_HUB_TRUSTED_PROXIES": (
        " 10.0.0.1, ::1 ",
        "hub_trusted_proxies",
        ("10.0.0.1", "::1"),
    ),
    "ORIGIN_HUB_TIMEOUT_MS": ("500", "hub_timeout_ms", 500),
}


def test_one_table_the_stores_settings_first_each_once():
    names = [setting.env for setting in TABLE]
    assert TABLE[: len(store_settings.TABLE)] == store_settings.TABLE
    assert len(names) == len(set(names))
    assert [s.env for s in store_settings.TABLE] == [
        "ORIGIN_HOME",
        "ORIGIN_MAP_SIZE",
        "ORIGIN_DEVICE",
    ]


def test_every_setting_in_the_table_is_read_and_changes_its_field(tmp_path: Path):
    assert set(CHANGED) == {setting.env for setting in TABLE}
    base = {"HOME": str(tmp_path)}
    default = Settings.from_env(base)
    for name, (value, field, expected) in CHANGED.items():
        changed = Settings.from_env({**base, name: value})
        assert getattr(changed, field) == expected, name
        assert getattr(default, field) != expected, name
        others = {f.name for f in dataclasses.fields(Settings)} - {field, "environ"}
        assert all(getattr(changed, f) == getattr(default, f) for f in others), name


def test_defaults_come_from_the_table_and_empty_is_unset(tmp_path: Path):
    settings = Settings.from_env({"HOME": str(tmp_path), **{s.env: "" for s in TABLE}})
    assert settings == dataclasses.replace(
        Settings.from_env({"HOME": str(tmp_path)}), environ=settings.environ
    )
    defaults = {s.env: s.default for s in TABLE}
    assert settings.home == tmp_path / ".origin" and defaults["ORIGIN_HOME"] == "~/.origin"
    assert settings.map_size == int(defaults["ORIGIN_MAP_SIZE"])
    assert settings.watch_interval_ms == int(defaults["ORIGIN_WATCH_INTERVAL_MS"])
    assert settings.search_ingest_interval_ms == int(defaults["ORIGIN_SEARCH_INGEST_INTERVAL_MS"])
    assert settings.hub_host == defaults["ORIGIN_HUB_HOST"] and settings.hub_port == int(
        defaults["ORIGIN_HUB_PORT"]
    )
    assert settings.hub_max_body == int(defaults["ORIGIN_HUB_MAX_BODY"])
    assert settings.hub_request_timeout_ms == int(defaults["ORIGIN_HUB_REQUEST_TIMEOUT_MS"])
    assert settings.hub_timeout_ms == int(defaults["ORIGIN_HUB_TIMEOUT_MS"]) == 2000
    assert settings.hub_allowed_hosts == () and settings.hub_rate_limit == "" and settings.device


def test_the_store_reads_only_its_own_settings(tmp_path: Path):
    store = StoreSettings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HUB_PORT": "9999", "ORIGIN_MAP_SIZE": "4096"}
    )
    assert {f.name for f in dataclasses.fields(store)} == {
        "home",
        "map_size",
        "user_home",
        "environ",
        "device",  # imported entries are written by ingest, as <agent>@<device>
    }
    assert store.map_size == 4096 and not hasattr(store, "hub_port")
    assert {s.env for s in OWN}.isdisjoint(s.env for s in store_settings.TABLE)


def test_origin_given_the_stores_settings_reads_the_apis_from_the_same_environment(tmp_path: Path):
    env = {
        "HOME": str(tmp_path),
        "ORIGIN_HOME": str(tmp_path / "o"),
        "ORIGIN_HUB_PORT": "9999",
        "ORIGIN_DEVICE": "desk",
    }
    with Origin.open(StoreSettings.from_env(env)) as origin:
        assert isinstance(origin.settings, Settings)
        assert origin.settings.hub_port == 9999 and origin.settings.device == "desk"
    given = Settings.from_env(env)
    assert Settings.of(given) is given


def test_no_code_reads_a_setting_that_is_not_in_the_table():
    named = set()
    for package in ("origin_store", "origin_search", "origin_api"):
        for path in (ROOT / package).rglob("*.py"):
            named |= set(re.findall(r"\bORIGIN_[A-Z_]+\b", path.read_text()))
    assert named <= {s.env for s in TABLE}


def test_an_origin_home_that_is_a_demo_reads_only_its_samples(tmp_path: Path):
    """`ORIGIN_HOME=~/.origin/demo origin search …` browses the demo; the real agents' folders,
    which the environment still names, never get in."""
    demo = tmp_path / "origin" / "demo"
    demo.mkdir(parents=True)
    (demo / "demo.json").write_text("{}")
    real = {
        "HOME": str(tmp_path),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "real-claude"),
        "ORIGIN_HUB_PORT": "9999",
    }
    settings = Settings.from_env({**real, "ORIGIN_HOME": str(demo)})
    assert settings.home == demo and settings.hub_port == 9999
    assert settings.environ["CLAUDE_CONFIG_DIR"] == str(demo / "samples" / "claude")
    assert settings.user_home == demo / "samples"
    plain = Settings.from_env({**real, "ORIGIN_HOME": str(tmp_path / "origin")})
    assert plain.environ["CLAUDE_CONFIG_DIR"] == str(tmp_path / "real-claude")


WHOLE_NUMBERS = [s.env for s in TABLE if s.default.isdigit()]


@pytest.mark.parametrize("name", WHOLE_NUMBERS)
def test_a_number_setting_that_is_no_number_is_named_in_one_readable_error(
    name: str, tmp_path: Path
) -> None:
    with pytest.raises(BadSetting) as refused:
        Settings.from_env({"HOME": str(tmp_path), name: "soon"})
    assert str(refused.value) == f"{name} must be a whole number, not 'soon'."


def test_the_cli_reports_a_bad_number_setting_in_one_line(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "o"), "ORIGIN_CLI_LINGER_S": "0"}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("origin")), "status"],
        env={**env, "ORIGIN_HUB_PORT": "eighty"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == "error: ORIGIN_HUB_PORT must be a whole number, not 'eighty'.\n"
