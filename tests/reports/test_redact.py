"""No planted secret survives in any artifact: table, JSON, JUnit, job summary, annotations,
dumped records, history and trend page.

An agent of the project's own plants one secret of each kind in its final response, in a tool
call's arguments (which `echo` hands back as its result) and in an error it raises; the run
writes every artifact there is, then `harness trend` writes the page and its summary. Only the
first `KEEP` characters of a secret may be shown anywhere.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness._cli.main import main
from harness.credentials import KEEP
from harness.messages import Message, ToolCall
from harness.replay.context import CaseContext
from tests.builders import echo_trace, text_step

PLANTED = {"text": ""}
"""What the agent plants this run (set by the test before the run)."""

AGENT = f"{__name__}:planting_agent"


class PlantingAgent:
    """Says, sends to a tool, and (in the case named `raising`) raises the planted text."""

    def __init__(self, context: CaseContext) -> None:
        self.context = context

    def turn(self, user_input: str) -> str:
        planted = PLANTED["text"]
        self.context.provider.complete([Message(role="user", content=user_input)], ())
        self.context.tools.dispatch(
            ToolCall(id="call_1", name="echo", arguments={"message": planted})
        )
        if self.context.case_name == "raising":
            raise RuntimeError(f"the upstream said {planted}")
        return f"done: {planted}"


def planting_agent(context: CaseContext) -> PlantingAgent:
    return PlantingAgent(context)


SECRET = st.text(alphabet="ABCDEFGHJKMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789", min_size=16)
"""A secret's body: letters and digits, so no escaping in any artifact can hide a survivor."""

Plant = Callable[[str], str]
KINDS: dict[str, list[Plant]] = {
    "named key": [
        lambda s: f"DB_PASSWORD={s}",
        lambda s: f"export AWS_SECRET_ACCESS_KEY={s}",
        lambda s: f"NPM_TOKEN: {s}",
        lambda s: f"OPENAI_API_KEY='{s}'",
        lambda s: f"MY_APP_SECRET_VALUE = {s}",
        lambda s: f'{{"client_secret": "{s}"}}',
        lambda s: f'{{"password": "correct horse {s} staple"}}',
    ],
    "short named key": [
        lambda s: f"DB_PASSWORD={s[:SHORT]}",
        lambda s: f"password: {s[:SHORT]}",
        lambda s: f"NPM_TOKEN={s[:SHORT]}",
        lambda s: f"export AWS_SECRET_ACCESS_KEY='{s[:SHORT]}'",
        lambda s: f'{{"api_key": "{s[:SHORT]}"}}',
    ],
    "authorization": [
        lambda s: f"Authorization: Token {s}",
        lambda s: f"authorization: Bearer {s}",
        lambda s: f"Proxy-Authorization: Negotiate {s}",
        lambda s: f'{{"Authorization": "Custom-Scheme {s}"}}',
    ],
    "digest": [
        lambda s: (
            'Authorization: Digest username="harness_user", realm="example.com", '
            f'nonce="dcd98b7102dd2f0e", uri="/dir/index.html", response="{s}", opaque="5ccc069c"'
        ),
        lambda s: (
            f'{{"Proxy-Authorization": "Digest username=\\"harness_user\\", response=\\"{s}\\""}}'
        ),
        lambda s: f"Authorization: Digest username=harness_user, qop=auth, response={s}, nc=01",
    ],
    "PGP block": [
        lambda s: (
            f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{s}\n=abcd\n"
            "-----END PGP PRIVATE KEY BLOCK-----"
        ),
    ],
    "URL password": [
        lambda s: f"cloning https://harness_user:{s}@example.com/repo.git",
        lambda s: f"postgres://harness_user:{s}@db.example.com:5432/app",
    ],
    "Google key": [lambda s: f"key AIza{(s * 3)[:35]} in use"],
    "issue 31 shape": [
        lambda s: f"PGPASSWORD={s} psql -h db.example.com",
        lambda s: f"PASS_WORD={s}",
        lambda s: f"mysql pass={s}",
        lambda s: f"glpat-{s}",
        lambda s: f"sk_live_{s}",
        lambda s: f"rk_live_{s}",
        lambda s: f"SG.{s}.{s}",
        lambda s: f"hf_{s}{s}",
        lambda s: f"npm_{s}{s}",
        lambda s: f"https://hooks.slack.com/services/T0000/B0000/{s}",
        lambda s: f"DefaultEndpointsProtocol=https;AccountName=harness;AccountKey={s}==;",
        lambda s: f"https://harness.blob.example.com/c?sv=2022-11-02&sig={s}%3D",
        lambda s: f"user=harness_user&password%3D{s}",
        lambda s: f"PASSWORD:\t{s}",
        lambda s: f"secret:\n{s}",
        lambda s: f"<password>{s}</password>",
    ],
    "cookie": [
        lambda s: f"Cookie: session={s}; theme=dark",
        lambda s: f"Set-Cookie: sid={s}; Path=/; HttpOnly",
        lambda s: f"Cookie: theme=dark; session={s}; csrftoken=abc",
        lambda s: f'Cookie: a=1; b="{s}"',
    ],
}
SHORT = 7
"""Characters of a short secret: under `2 * KEEP`, so none of it may be shown."""


def planted(secret: str, plant: Plant) -> str:
    """What of `secret` a plant puts in the text: all of it, or its first `SHORT` characters."""
    return secret[:SHORT] if plant in KINDS["short named key"] else secret


def survivor(secret: str) -> bytes:
    """What must not appear: the secret past the characters a redaction may show (a short one
    keeps none)."""
    return (secret[KEEP:] if len(secret) >= 2 * KEEP else secret).encode()


@contextlib.contextmanager
def project(folder: Path) -> Iterator[dict[str, Path]]:
    """A suite of two cases and the paths of every artifact a run and a trend write."""
    suite = folder / "suite"
    suite.mkdir()
    expects = {
        "response_contains": ["nope"],
        "tool_arguments_contain": [{"tool": "echo", "needle": "nope"}],
        "tool_results_contain": [{"tool": "echo", "needle": "nope"}],
    }
    turns = [{"user_input": "go", "steps": [text_step("ok")]}]
    for name in ("saying", "raising"):
        trace = echo_trace(model_name=name, turns=turns, expects=expects)
        (suite / f"{name}.json").write_text(json.dumps(trace))
    yield {
        "suite": suite,
        "json": folder / "report.json",
        "junit": folder / "report.xml",
        "history": folder / "history.sqlite",
        "summary": folder / "summary.md",
        "page": folder / "trend.html",
        "records": folder / "records",
    }


def run_everything(
    paths: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> str:
    """`harness run` with every artifact, in GitHub Actions, then `harness trend`: all output."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(paths["summary"]))
    run = ["run", "--suite", str(paths["suite"]), "--agent", AGENT]
    run += ["--json", str(paths["json"]), "--junit", str(paths["junit"])]
    run += ["--history", str(paths["history"]), "--dump-records", str(paths["records"])]
    assert main(run) == 1
    for output_format in ("table", "json"):
        assert main([*run[:5], "--format", output_format]) == 1  # the table and JSON on stdout
    trend = ["trend", "--history", str(paths["history"]), "--html", str(paths["page"])]
    assert main(trend) == 0
    assert main([*trend[:3], "--format", "markdown"]) == 0
    captured = capsys.readouterr()
    return captured.out + captured.err


def check_nothing_survives(
    secret: str, plant: Plant, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    PLANTED["text"] = plant(secret)
    secret = planted(secret, plant)
    with tempfile.TemporaryDirectory() as folder, project(Path(folder)) as paths:
        shown = run_everything(paths, capsys, monkeypatch)
        assert "::error" in shown  # annotations were printed
        assert "saying" in shown
        assert survivor(secret) not in shown.encode(), "in the table, JSON or annotations"
        files = sorted(p for p in Path(folder).iterdir() if p.is_file())
        names = {p.name for p in files}
        assert {"report.json", "report.xml", "history.sqlite", "summary.md", "trend.html"} <= names
        records = sorted(paths["records"].iterdir())
        assert len(records) == 2  # both cases failed, each left its record
        for path in (*files, *records):
            assert survivor(secret) not in path.read_bytes(), f"in {path.name}"
        cases = {case["name"]: case for case in json.loads(paths["json"].read_bytes())["cases"]}
        assert cases["raising"]["error"].startswith("RuntimeError: the upstream said ")
        assert cases["saying"]["final_response"].startswith("done: ")


@pytest.mark.parametrize(
    ("kind", "index"), [(kind, i) for kind, plants in KINDS.items() for i in range(len(plants))]
)
def test_each_kind_of_planted_secret_is_in_no_artifact(
    kind: str, index: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every shape, once, with a fixed secret."""
    check_nothing_survives("Q7w8E9r6T5y4U3i2", KINDS[kind][index], capsys, monkeypatch)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    secret=SECRET, plant=st.sampled_from([plant for plants in KINDS.values() for plant in plants])
)
def test_no_planted_secret_survives_in_any_artifact(
    secret: str, plant: Plant, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any secret, any kind: no artifact holds more of it than its first characters."""
    check_nothing_survives(secret, plant, capsys, monkeypatch)


def test_a_request_body_value_under_a_secret_key_is_redacted() -> None:
    """In a wire request body the key is not beside its value in one text: judged on its own."""
    from harness.reports.redact import _published_json

    body: dict[str, Any] = {"model": "m", "api_key": "Q7w8E9r6T5y4U3i2", "max_tokens": "12345678"}
    published = _published_json(body)
    assert published["api_key"] == "Q7w8*[REDACTED]"
    assert published["max_tokens"] == "12345678"
    assert published["model"] == "m"


@pytest.mark.parametrize("index", range(len(KINDS["issue 31 shape"])))
def test_each_shape_an_agent_sends_its_model_is_masked_in_the_kept_requests(
    index: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wire agent's request bodies, kept in the case's `requests`, hold no credential."""
    secret = "Q7w8E9r6T5y4U3i2"
    suite = tmp_path / "suite"
    suite.mkdir()
    trace = echo_trace(expects={"response_contains": ["nope"]})
    trace["turns"][0]["user_input"] = KINDS["issue 31 shape"][index](secret)
    (suite / "a.json").write_text(json.dumps(trace))
    report = tmp_path / "report.json"
    argv = ["run", "--suite", str(suite), "--agent", "tests.wire_agents:factory"]
    assert main([*argv, "--json", str(report)]) == 1
    capsys.readouterr()
    (case,) = json.loads(report.read_bytes())["cases"]
    bodies = json.dumps([request["body"] for request in case["requests"]])
    assert '"role": "user"' in bodies  # the bodies are kept, the user's turn in them
    assert len(case["requests"]) == 2
    assert survivor(secret) not in report.read_bytes()
