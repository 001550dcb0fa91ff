"""`nox -s mutants`: the sample it takes, and how it scores what survived."""

from __future__ import annotations

import json
from pathlib import Path

from tests.mutants.session import (
    EQUIVALENT,
    Equivalent,
    load_equivalents,
    mutated_line,
    sample,
    score,
    widen_to_modules,
)

KEYS = {"m.py": [f"m.f__mutmut_{i}" for i in range(1, 51)], "n.py": ["n.g__mutmut_1"]}


def test_the_sample_is_the_same_for_a_seed_and_differs_across_seeds() -> None:
    """Reproducible: a seed picks the same mutants; a module with fewer gives all of them."""
    first, again, other = sample(KEYS, 10, 37), sample(KEYS, 10, 37), sample(KEYS, 10, 38)
    assert first == again
    assert first["m.py"] != other["m.py"]
    assert len(first["m.py"]) == 10
    assert set(first["m.py"]) <= set(KEYS["m.py"])
    assert first["n.py"] == ["n.g__mutmut_1"]
    assert sample(KEYS, 0, 37)["m.py"] == sorted(KEYS["m.py"])


def test_a_survivor_counts_unless_judged_equivalent_for_the_same_line() -> None:
    """Killed and timed-out mutants are kills; a judgement for another line is stale."""
    codes: dict[str, int | None] = {"a": 1, "b": 0, "c": 0, "d": 0, "e": 36}
    judged = {
        "c": Equivalent(line="x = 2", reason="never read"),
        "d": Equivalent(line="y = 2", reason="never read"),
    }
    scored = score("m.py", codes, judged, {"c": "x = 2", "d": "y = 3"})
    assert (scored.killed, scored.survived, scored.equivalent) == (["a", "e"], ["b", "d"], ["c"])
    assert scored.share == 0.5


def test_the_mutated_line_is_the_first_added_one() -> None:
    """What an equivalence judgement is checked against, the diff's headers aside."""
    diff = "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-    x = 1\n+    x = 2\n"
    assert mutated_line(diff) == "x = 2"
    assert mutated_line("") == ""


def test_every_listed_equivalent_gives_its_line_and_reason(tmp_path: Path) -> None:
    """The committed list parses, and each entry says what it changes and why that is safe."""
    listed = load_equivalents(EQUIVALENT)
    assert all(entry.line and entry.reason for entry in listed.values())
    written = tmp_path / "e.toml"
    written.write_text('[mutant."m.f__mutmut_1"]\nline = "x = 2"\nreason = "dead"\n')
    assert load_equivalents(written) == {"m.f__mutmut_1": Equivalent(line="x = 2", reason="dead")}


def test_each_function_gets_every_test_that_reaches_its_module(tmp_path: Path) -> None:
    """A function reached once under a cache still gets its module's other tests."""
    stats = tmp_path / "mutmut-stats.json"
    reached = {
        "harness.credentials.x_find": ["t1"],
        "harness.credentials.x__separator": [],
        "harness.replay.endpoint.xǁ_Handlerǁdo_GET": ["t3"],
    }
    stats.write_text(json.dumps({"tests_by_mangled_function_name": reached, "other": 1}))
    widen_to_modules(stats)
    widened = json.loads(stats.read_text(encoding="utf-8"))
    assert widened == {
        "tests_by_mangled_function_name": {
            "harness.credentials.x_find": ["t1"],
            "harness.credentials.x__separator": ["t1"],
            "harness.replay.endpoint.xǁ_Handlerǁdo_GET": ["t3"],
        },
        "other": 1,
    }
