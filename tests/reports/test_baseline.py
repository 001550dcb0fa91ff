"""Baselines: written after a clean run, then the exit status of a run compared with them."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from tests.builders import echo_trace


def _write(suite: Path, name: str, trace: dict[str, Any]) -> None:
    (suite / f"{name}.json").write_text(json.dumps(trace))


def _compared(out: str) -> list[tuple[str, ...]]:
    """The comparison table's rows (and lines under them), each split into its cells."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("baseline    case"))
    return [tuple(re.split(r"  +", line.strip())) for line in lines[start + 2 :]]


def _failing(name: str) -> dict[str, Any]:
    return echo_trace(model_name=name, expects={"response_contains": ["never said"]})


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    _write(folder, "steady", echo_trace(model_name="steady"))
    _write(folder, "to_break", echo_trace(model_name="to-break"))
    _write(folder, "to_change", echo_trace(model_name="to-change"))
    _write(folder, "already_failing", _failing("already-failing"))
    return folder


def test_the_baseline_round_trip(
    suite: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same failure of the same fixture is excused; a regression, or a changed or new
    fixture that fails, gates."""
    baseline = tmp_path / "baseline.json"
    # one agent throughout (a baseline holds its tool surface), which breaks when told to
    (tmp_path / "baseline_breaking_agent.py").write_text(BREAKING_AGENT)
    monkeypatch.chdir(tmp_path)
    agent = ["--agent", "baseline_breaking_agent:factory"]
    assert main(["run", "--suite", str(suite), *agent, "--write-baseline", str(baseline)]) == 1
    written = json.loads(baseline.read_text())
    assert written["schema"] == "harness/baseline/v1"
    assert written["mode"] == "replay"
    assert written["tool_surface"].startswith("sha256:")
    verdicts = {case["id"]: case["verdict"] for case in written["cases"]}
    assert verdicts == {
        "already_failing": "fail",
        "steady": "pass",
        "to_break": "pass",
        "to_change": "pass",
    }
    capsys.readouterr()

    # against itself: fail→fail does not gate
    against = ["run", "--suite", str(suite), *agent, "--baseline", str(baseline)]
    assert main(against) == 0
    assert "baseline: no case flipped" in capsys.readouterr().out

    # a changed fixture (a new hash) that passes, and a new one: reported, exit 0
    _write(suite, "to_change", echo_trace(model_name="to-change", expects={"max_tool_calls": 1}))
    _write(suite, "brand_new", echo_trace(model_name="brand-new"))
    assert main(against) == 0
    out = capsys.readouterr().out
    assert _compared(out) == [
        ("changed", "to-change", "fixture differs, passes now: refresh the baseline"),
        ("new", "brand-new", "not in the baseline"),
    ]

    # ... and the same two failing: no failure of theirs is in the baseline, so both gate
    _write(suite, "to_change", _failing("to-change"))
    _write(suite, "brand_new", _failing("brand-new"))
    assert main(against) == 1
    out = capsys.readouterr().out
    failing = ("fails now; the baseline holds no such failure to excuse",)
    assert _compared(out) == [
        ("FAILING", "brand-new", *failing),
        ("FAILING", "to-change", *failing),
    ]
    (suite / "brand_new.json").unlink()
    _write(suite, "to_change", echo_trace(model_name="to-change"))

    # an agent regression: the fixture is untouched (same hash) and its case now fails
    monkeypatch.setenv("BASELINE_BREAK", "to-break")
    junit = tmp_path / "flips.xml"
    assert main([*against, "--junit", str(junit)]) == 1
    out = capsys.readouterr().out
    assert _compared(out) == [("REGRESSED", "to-break", "passed in the baseline, fails now")]
    cases = {case.get("name"): case for case in ET.parse(junit).getroot().iter("testcase")}
    broken = cases["to-break"]
    failure = broken.find("failure")
    assert failure is not None
    assert failure.get("message", "").startswith("REGRESSED since the baseline: ")
    assert broken.findtext("system-err") == (
        "baseline: REGRESSED: passed in the baseline, fails now (gates)"
    )
    assert cases["steady"].find("system-err") is None


BREAKING_AGENT = """
import os

from harness.replay.agent import ReferenceAgent

class Breaking:
    def __init__(self, context):
        self._agent = ReferenceAgent(context.provider, context.tools)
        self._name = context.case_name

    def turn(self, user_input):
        text = self._agent.turn(user_input)
        return "broken" if self._name == os.environ.get("BASELINE_BREAK") else text

def factory(context):
    return Breaking(context)
"""


def test_no_baseline_after_a_run_that_errored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error is not a verdict: the baseline is not written, and the run says so."""
    folder = tmp_path / "suite"
    folder.mkdir()
    trace = echo_trace()
    trace["turns"][0]["steps"].append(trace["turns"][0]["steps"][-1])  # over-specified turn
    _write(folder, "errors", trace)
    baseline = tmp_path / "b.json"
    assert main(["run", "--suite", str(folder), "--write-baseline", str(baseline)]) == 1
    assert not baseline.exists()
    assert "baseline not written: the run had 1 errored case(s)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"schema": "other"}', 'baseline schema is "other", expected "harness/baseline/v1"'),
        ('{"schema": "harness/baseline/v2", "x": 1}', 'baseline schema is "harness/baseline/v2"'),
        ("[1]", "not a harness baseline"),
        ("", "not a harness baseline"),
        (None, "is not a regular file"),  # a FIFO: refused, never waited on
        (
            json.dumps({
                "schema": "harness/baseline/v1", "suite": "s", "mode": "replay",
                "tool_surface": "", "cases": [
                    {"id": "a", "case_hash": "", "verdict": "pass"},
                    {"id": "a", "case_hash": "", "verdict": "fail"},
                ],
            }),
            'case id "a" appears twice',
        ),
    ],
)  # fmt: skip
def test_a_bad_baseline_file_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, reason: str
) -> None:
    """One line naming the file and the reason, before anything runs."""
    bad = tmp_path / "b.json"
    if content is None:
        os.mkfifo(bad)
    else:
        bad.write_text(content)
    assert main(["run", "--baseline", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: {bad}: ")
    assert reason in err
    assert err.count("\n") == 1


def _baseline_of(tmp_path: Path, suite: Path, verdicts: dict[str, str], *flags: str) -> Path:
    """A baseline of `suite` (run with `flags`) with the verdicts edited to `verdicts` (by id)."""
    path = tmp_path / "edited.json"
    argv = ["run", "--suite", str(suite), *flags, "--write-baseline", str(path)]
    assert main(argv) in (0, 1)
    written = json.loads(path.read_text())
    for case in written["cases"]:
        case["verdict"] = verdicts.get(case["id"], case["verdict"])
    path.write_text(json.dumps(written))
    return path


def test_a_regression_exits_1_when_stdouts_reader_is_gone(suite: Path, tmp_path: Path) -> None:
    """The comparison is printed through the guarded stdout: a closed pipe keeps the status."""
    from tests._cli.test_rough_edges import closed_pipe

    baseline = _baseline_of(tmp_path, suite, {"already_failing": "pass"})
    assert closed_pipe("run", "--suite", str(suite), "--baseline", str(baseline)) == (1, "")


def test_the_table_marks_flips_and_the_comparison_follows_it(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `baseline` column says how each case flipped; the comparison comes after the recap."""
    baseline = _baseline_of(tmp_path, suite, {"already_failing": "pass"})
    capsys.readouterr()
    assert main(["run", "--suite", str(suite), "--baseline", str(baseline)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["case", "source", "checks", "baseline"]
    flipped = next(line for line in lines if "already-failing" in line and "✗" in line)
    assert flipped.endswith("REGRESSED")
    steady = next(line for line in lines if " steady " in line)
    assert steady.endswith("checks")
    assert lines[-4:] == [
        "",
        "baseline    case             since the baseline",
        "----------  ---------------  ---------------------------------",
        "REGRESSED   already-failing  passed in the baseline, fails now",
    ]


def test_junit_marks_follow_the_testcase_not_its_cleaned_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name the JUnit file cleans (an escape, a tab) still gets its mark; the terminal line
    shows the names escaped."""
    folder = tmp_path / "suite"
    folder.mkdir()
    _write(folder, "red", _failing("case\u001b[31mred"))
    _write(folder, "tab", _failing("tab\there"))
    baseline = _baseline_of(tmp_path, folder, {"red": "pass", "tab": "pass"})
    junit = tmp_path / "j.xml"
    capsys.readouterr()
    argv = ["run", "--suite", str(folder), "--baseline", str(baseline), "--junit", str(junit)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert _compared(out) == [
        ("REGRESSED", "case\\x1b[31mred", "passed in the baseline, fails now"),
        ("REGRESSED", "tab\\there", "passed in the baseline, fails now"),
    ]
    marked = [case.findtext("system-err") for case in ET.parse(junit).getroot().iter("testcase")]
    assert marked == ["baseline: REGRESSED: passed in the baseline, fails now (gates)"] * 2


def test_skips_and_cases_not_run_are_reported_and_an_all_skipped_run_gates(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Skipping what passed, or dropping it, is said; a run that graded nothing does not pass."""
    baseline = _baseline_of(tmp_path, suite, {})
    _write(suite, "steady", echo_trace(model_name="steady", skip="flaky upstream"))
    (suite / "to_change.json").unlink()
    capsys.readouterr()
    assert main(["run", "--suite", str(suite), "--baseline", str(baseline)]) == 0
    out = capsys.readouterr().out
    assert _compared(out) == [
        ("skipped", "steady", "passed in the baseline, skipped now (not gated)"),
        (
            "not run",
            "to-change",
            "in the baseline, not in this run: removed, renamed or not selected",
        ),
    ]
    for name in ("to_break", "already_failing"):
        (suite / f"{name}.json").unlink()
    assert main(["run", "--suite", str(suite), "--baseline", str(baseline)]) == 1
    assert "every case was skipped: nothing was graded (gates)" in capsys.readouterr().out


def test_a_gating_comparison_does_not_overwrite_its_baseline(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Writing over it would let the next run pass on the regression this one found."""
    baseline = _baseline_of(tmp_path, suite, {"already_failing": "pass"})
    before = baseline.read_bytes()
    argv = ["run", "--suite", str(suite), "--baseline", str(baseline)]
    assert main([*argv, "--write-baseline", str(baseline)]) == 1
    assert baseline.read_bytes() == before
    assert "baseline not written over: the comparison with it gates" in capsys.readouterr().err


def test_a_run_stopped_at_its_first_failure_says_why_it_wrote_no_baseline(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "b.json"
    assert main(["run", "--suite", str(suite), "-x", "--write-baseline", str(baseline)]) == 1
    assert not baseline.exists()
    assert "baseline not written: the run stopped at its first failure (-x)" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("flag", ["--json", "--junit", "--write-baseline", "--dump-records"])
def test_an_output_path_under_a_file_is_refused_before_the_run(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    """Exit 2 at once, naming the flag and the file in the way; not after the whole run."""
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    target = blocker / "out.json"
    assert main(["run", "--suite", str(suite), flag, str(target)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"harness: {flag} {target}: {blocker} is not a folder\n"
    assert captured.out == ""
    assert main(["run", "--suite", str(suite), flag, ""]) == 2
    assert capsys.readouterr().err == f"harness: {flag}: the path is empty\n"


def test_dumped_records_never_overwrite_each_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ids that clean to one file name, even differing only in case, each keep their file;
    a long id is cut to a name the file system takes."""
    folder = tmp_path / "suite"
    folder.mkdir()
    ids = ["x:1", "x;1", "日本", "其他", "Up", "up", "y" * 300]
    for i, identity in enumerate(ids):
        _write(folder, f"c{i}", {**_failing(f"case-{i}"), "id": identity})
    dump = tmp_path / "dump"
    assert main(["run", "--suite", str(folder), "--dump-records", str(dump)]) == 1
    written = sorted(path.name for path in dump.iterdir())
    assert len(written) == len(ids)
    assert {json.loads((dump / name).read_text())["id"] for name in written} == set(ids)
    assert max(len(name) for name in written) <= 125


def test_the_mark_joins_the_agents_captured_stderr_in_one_element(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JUnit keeps one `system-err` a testcase: the mark comes first, the agent's words after."""
    (tmp_path / "baseline_noisy_agent.py").write_text(NOISY_AGENT)
    monkeypatch.chdir(tmp_path)
    baseline = _baseline_of(tmp_path, suite, {}, "--agent", "baseline_noisy_agent:factory")
    monkeypatch.setenv("BASELINE_BREAK", "to-break")
    junit = tmp_path / "j.xml"
    argv = ["run", "--suite", str(suite), "--baseline", str(baseline), "--junit", str(junit)]
    assert main([*argv, "--agent", "baseline_noisy_agent:factory"]) == 1
    cases = {case.get("name"): case for case in ET.parse(junit).getroot().iter("testcase")}
    errs = cases["to-break"].findall("system-err")
    assert len(errs) == 1
    text = errs[0].text or ""
    assert text.startswith("baseline: REGRESSED: passed in the baseline, fails now (gates)\n")
    assert "noise from the agent" in text
    assert cases["steady"].findtext("system-err", "").startswith("noise from the agent")


NOISY_AGENT = BREAKING_AGENT.replace(
    "        text = self._agent.turn(user_input)",
    "        import sys\n        print('noise from the agent', file=sys.stderr)\n"
    "        text = self._agent.turn(user_input)",
)


def test_with_format_json_the_comparison_goes_to_stderr(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stdout stays the JSON document alone; the comparison and its status are still there."""
    baseline = _baseline_of(tmp_path, suite, {"already_failing": "pass"})
    capsys.readouterr()
    argv = ["run", "--suite", str(suite), "--baseline", str(baseline), "--format", "json"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["total"] == 4
    assert _compared(captured.err) == [
        ("REGRESSED", "already-failing", "passed in the baseline, fails now")
    ]


def test_an_errored_case_is_marked_and_gates(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run error is no verdict: it gates whatever the baseline said, and its testcase says so."""
    baseline = _baseline_of(tmp_path, suite, {})
    trace = echo_trace(model_name="steady")
    trace["turns"][0]["steps"].append(trace["turns"][0]["steps"][-1])  # over-specified turn
    _write(suite, "steady", trace)
    junit = tmp_path / "j.xml"
    capsys.readouterr()
    argv = ["run", "--suite", str(suite), "--baseline", str(baseline), "--junit", str(junit)]
    assert main(argv) == 1
    lines = capsys.readouterr().out.splitlines()
    assert next(line for line in lines if " steady " in line).endswith("errored")
    assert _compared("\n".join(lines)) == [("errored", "steady", "a run error gates")]
    cases = {case.get("name"): case for case in ET.parse(junit).getroot().iter("testcase")}
    assert cases["steady"].findtext("system-err") == "baseline: errored: a run error gates"


def test_an_output_path_that_is_a_folder_is_refused(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report file cannot replace a folder: said before the run, not after it."""
    assert main(["run", "--suite", str(suite), "--json", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"harness: --json {tmp_path}: it is a folder\n"


def test_an_interrupted_run_writes_no_baseline(tmp_path: Path) -> None:
    """A run a signal stopped lacks verdicts: the reason names the signal."""
    from harness.reports.baseline import write_baseline
    from harness.reports.model import SuiteReport

    report = SuiteReport(suite="s", directory="", mode="replay", cases=(), interrupted="SIGINT")
    path = tmp_path / "b.json"
    assert write_baseline(report, str(path)) == (
        f"{path}: baseline not written: the run was interrupted by SIGINT"
    )
    assert not path.exists()


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (["-k", "steady"], "the run selected its cases (-k 'steady'), not the whole suite"),
        (["--shard", "1/2"], "the run was shard 1/2 of the suite, not the whole suite"),
    ],
)
def test_a_run_of_part_of_the_suite_writes_no_baseline(
    suite: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    why: str,
) -> None:
    """The cases left out would come back `new`, which never gates: their regressions would
    pass. Nor is a full baseline replaced by such a part."""
    full = _baseline_of(tmp_path, suite, {})
    before = full.read_bytes()
    capsys.readouterr()
    argv = ["run", "--suite", str(suite), *extra, "--baseline", str(full)]
    main([*argv, "--write-baseline", str(full)])
    assert full.read_bytes() == before
    assert f"baseline not written: {why}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "err"),
    [
        (["--json", "{b}", "--write-baseline", "{b}"], "--write-baseline {b}: the same file as --json"),  # noqa: E501
        (["--junit", "{b}", "--json", "{b}"], "--junit {b}: the same file as --json"),
        (["--baseline", "{b}", "--json", "{b}"], "--json {b}: the same file as --baseline"),
        (["--baseline", ""], "--baseline: the path is empty"),
        (["--json", "{d}/"], "--json {d}/: it is a folder"),
    ],
)  # fmt: skip
def test_outputs_that_would_overwrite_each_other_are_refused(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], err: str
) -> None:
    """Before the run: a report written over the baseline (or another report) loses it."""
    baseline = _baseline_of(tmp_path, suite, {})
    capsys.readouterr()
    names = {"b": str(baseline), "d": str(tmp_path / "missing")}
    argv = ["run", "--suite", str(suite), *(flag.format(**names) for flag in flags)]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"harness: {err.format(**names)}\n"
    assert json.loads(baseline.read_text())["schema"] == "harness/baseline/v1"


def test_a_marked_junit_keeps_carriage_returns_escaped(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader would turn a raw CRLF into LF: the marked file escapes CR as the run's does."""
    agent = NOISY_AGENT.replace("'noise from the agent'", "'one\\r\\ntwo'")
    (tmp_path / "baseline_crlf_agent.py").write_text(agent)
    monkeypatch.chdir(tmp_path)
    baseline = _baseline_of(tmp_path, suite, {}, "--agent", "baseline_crlf_agent:factory")
    monkeypatch.setenv("BASELINE_BREAK", "to-break")
    junit = tmp_path / "j.xml"
    argv = ["run", "--suite", str(suite), "--baseline", str(baseline), "--junit", str(junit)]
    assert main([*argv, "--agent", "baseline_crlf_agent:factory"]) == 1
    data = junit.read_bytes()
    assert b"\r" not in data
    assert b"one&#13;\ntwo" in data
    cases = {case.get("name"): case for case in ET.parse(junit).getroot().iter("testcase")}
    assert "one\r\ntwo" in cases["to-break"].findtext("system-err", "")


def test_the_comparison_table_counts_what_it_leaves_out_under_its_kind() -> None:
    """Past 50 cases of a kind the rest are counted on a line under that kind's last row."""
    from harness.reports.baseline import CaseFlip, Comparison

    flips = [CaseFlip(id=f"r{i}", name=f"r{i}", flip="regressed") for i in range(52)]
    flips.append(CaseFlip(id="n", name="n", flip="new"))
    lines = Comparison(cases=tuple(flips), not_run=("gone",)).render().splitlines()
    assert lines[:4] == [
        "",
        "baseline    case    since the baseline",
        "----------  ------  ------------------------------------------------------------------",
        "REGRESSED   r0      passed in the baseline, fails now",
    ]
    assert lines[52:] == [
        "REGRESSED   r49     passed in the baseline, fails now",
        "      (+2 more REGRESSED)",
        "new         n       not in the baseline",
        "not run     gone    in the baseline, not in this run: removed, renamed or not selected",
    ]
    assert Comparison(cases=()).render() == "baseline: no case flipped"
