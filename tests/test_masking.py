"""What every output masks: the values of the secrets the harness holds, as CI masks them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.masking import hold, redact
from tests.builders import echo_trace, text_step
from tests.conftest import WriteFixture

VALUE = "plain-value-0042-harness"
"""A secret that looks like nothing: only its variable's name says it is one."""


def test_secret_named_variables_of_the_harness_environment_are_masked_everywhere(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """`HARNESS_SUITE_TOKEN`'s value is in no artifact and not on stdout; a short value, and
    `PWD`, which only look secret by name, are shown as they are."""
    said = f"value {VALUE}, short abc, here {tmp_path}"
    turns = [{"user_input": "go", "steps": [text_step(said)]}]
    trace = echo_trace(model_name="masked", turns=turns, expects={"response_contains": ["nope"]})
    suite = write_fixture("masked.json", trace).parent
    report = tmp_path / "report.json"
    env = {**os.environ, "HARNESS_SUITE_TOKEN": VALUE, "SHORT_TOKEN": "abc", "PWD": str(tmp_path)}
    argv = [sys.executable, "-m", "harness", "run", "--suite", str(suite), "--json", str(report)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    case = json.loads(report.read_text())["cases"][0]
    assert case["final_response"] == f"value plai*[REDACTED], short abc, here {tmp_path}"
    for output in (done.stdout, done.stderr, report.read_text()):
        assert VALUE[4:] not in output
    assert "plai*[REDACTED]" in done.stdout


def test_a_held_value_is_masked_as_it_is_and_as_json_escapes_it() -> None:
    """A value the harness was given is cut wherever it stands, quoted or not."""
    value = 'held"value\\0042'
    hold(value)
    assert redact(f"a {value} b") == "a held*[REDACTED] b"
    assert redact(json.dumps({"x": value})) == '{"x": "held*[REDACTED]"}'


def test_a_short_value_is_not_held() -> None:
    """Fewer than 8 characters mean nothing on their own: masking them would mangle text."""
    hold("abc1234")
    assert redact("abc1234 and more") == "abc1234 and more"
