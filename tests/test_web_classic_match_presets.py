"""The web client's copy of the classic presets and options (web/tablerules.js, which
the create form fills its fields from and the invitation compares a table's rules with) is
engine/rules.py's: C2's presets value by value (as engine.classic.view.options_of prints
them), the seats each allows with two packs, and C1's option names and allowed values.
Skipped where there is no ``node``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine import rules as R
from engine.classic.view import options_of

WEB = Path(__file__).resolve().parents[1] / "web"


def client_tables() -> dict[str, Any]:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node here (scripts/test.sh installs Debian's nodejs)")
    script = (
        "const m = await import(process.argv[1]);"
        "console.log(JSON.stringify({presets: m.PRESETS, two: m.MOST_PLAYERS_TWO_PACKS,"
        " options: m.OPTIONS, fewest: m.FEWEST_PLAYERS, most: m.MOST_PLAYERS}));")
    proc = subprocess.run([node, "--input-type=module", "-e", script, (WEB / "tablerules.js").as_uri()],
                          capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def test_the_clients_presets_are_the_engines() -> None:
    c = client_tables()
    assert set(c["presets"]) == set(R.CLASSIC_PRESETS)
    for name, rules in R.CLASSIC_PRESETS.items():
        assert c["presets"][name] == options_of(rules), name
        assert c["two"][name] == rules.most_players_two_packs, name
        assert (c["fewest"], c["most"]) == (rules.fewest_players, rules.most_players), name


def test_the_clients_options_are_c1s() -> None:
    options = {o["name"]: o for o in client_tables()["options"]}
    assert list(options) == [n for n in options if n in R.OPTION_FIELDS]
    assert set(options) == set(R.OPTION_FIELDS)
    for name, o in options.items():
        if name in R._CHOICES:
            assert o["kind"] == "choice" and o["values"] == list(R._CHOICES[name]), name
        elif name in R._ENUMS:
            enum = R._ENUMS[name]
            allowed = list(dict.fromkeys(m.value for m in enum if m is not R.AceMode.WRAP))
            assert o["kind"] == "choice" and o["values"] == allowed, name
        elif name in R._COUNTS:
            lowest, nullable = R._COUNTS[name]
            assert o["kind"] == "count" and o["lowest"] == lowest and bool(o.get("none")) == nullable, name
            assert o.get("most") == R.PLAYABLE_COUNTS.get(name), name
        else:
            nullable = R._SECONDS[name]
            assert o["kind"] == "seconds" and o["lowest"] == R.PLAYABLE_SECONDS[name], name
            assert bool(o.get("none")) == nullable, name
