"""--jobs, --shard and merge: the same verdicts however the suite is split."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness import _parallel as pool
from harness._cli.main import main
from harness.errors import MergeError, UsageError
from harness.fixtures import suite as suite_module
from harness.fixtures.shard import Shard, parse_shard
from harness.fixtures.suite import load_suite
from harness.grading.result import GradeResult
from harness.messages import RecordedCall
from harness.pipeline import dispatch as pipeline_suite
from harness.pipeline.dispatch import run_suite
from harness.pipeline.setup import Setup
from harness.recording import RunRecord
from harness.reports.document import SCHEMA_VERSION
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.shards import merge_reports, read_part
from harness.reports.writers import to_json
from tests.agents import upper_tools
from tests.builders import echo_trace, portable_regression, text_step
from tests.conftest import WriteFixture


def without_timings(document: dict[str, Any]) -> dict[str, Any]:
    cases = [{k: v for k, v in case.items() if k != "duration_s"} for case in document["cases"]]
    for case in cases:  # and each call's timing
        case["tool_calls"] = [untimed_call(call) for call in case.get("tool_calls", ())]
    kept = {k: v for k, v in document.items() if k not in {"duration_s", "started_at", "cases"}}
    return {**kept, "cases": cases}


def untimed_call(call: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in call.items() if k not in {"started_s", "duration_s"}}


@pytest.fixture
def mixed_suite(write_fixture: WriteFixture) -> Path:
    """Twelve cases: passing, failing and errored, in one folder."""
    for i in range(12):
        expects = {"response_contains": ["hello" if i % 3 else "nope"]}
        turns = None
        if i % 5 == 4:
            turns = [{"user_input": "hi", "steps": [text_step("hello"), text_step("extra")]}]
        changes: dict[str, Any] = {"model_name": f"case-{i:02d}", "expects": expects}
        if turns:
            changes["turns"] = turns
        path = write_fixture(f"c{i:02d}.json", echo_trace(**changes))
    return path.parent


@pytest.fixture
def worker_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many cases each replay in worker processes got."""
    calls: list[int] = []
    real = pool.run_in_workers

    def counted(task: Any, items: Any, state: Any, jobs: int, **types: Any) -> Any:
        calls.append(len(items))
        return real(task, items, state, jobs, **types)

    monkeypatch.setattr(pool, "run_in_workers", counted)
    return calls


@pytest.fixture
def worker_runs(worker_calls: list[int], monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """`worker_calls`, with workers used for a suite of any size."""
    monkeypatch.setattr(pipeline_suite, "PARALLEL_MIN", 2)
    return worker_calls


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    status = main([*argv, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fork", [True, False], ids=["fork", "forkserver"])
def test_jobs_output_equals_serial_output(
    mixed_suite: Path,
    fork: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    worker_runs: list[int],
) -> None:
    """Same order, verdicts and JSON (apart from timings) with worker processes."""
    monkeypatch.setattr(pool, "_can_fork", lambda: fork)
    serial_status, serial = run_json(["run", "--suite", str(mixed_suite)], capsys)
    parallel_status, parallel = run_json(
        ["run", "--suite", str(mixed_suite), "--jobs", "3"], capsys
    )
    assert worker_runs == [12]
    assert serial_status == parallel_status == 1
    assert without_timings(parallel) == without_timings(serial)


def test_jobs_with_a_project_agent(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Plugged-in agents and tools reach the workers too."""
    argv = [
        "run",
        "--suite",
        portable_regression(tmp_path),
        "--agent",
        "tests.agents:sync_agent",
    ]
    status, report = run_json([*argv, "--tools", "tests.agents:upper_tools", "--jobs", "2"], capsys)
    assert status == 0
    assert report["passed"] == report["total"]


CRASHING = """
import os
from harness.replay.agent import ReferenceAgent

class Agent:
    def __init__(self, inner):
        self.inner = inner

    def turn(self, user_input):
        if "crash" in user_input:
            os._exit(3)
        return self.inner.turn(user_input)

def factory(context):
    return Agent(ReferenceAgent(context.provider, context.tools))
"""


def test_a_crash_in_a_worker_errors_only_its_case(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A worker that dies takes down its own case only; its neighbours keep their verdicts."""
    (tmp_path / "crashy_agent.py").write_text(CRASHING)
    monkeypatch.chdir(tmp_path)
    for i in range(6):
        text = "please crash" if i == 2 else "hi"
        turns = [{"user_input": text, "steps": [text_step("hello")]}]
        write_fixture(
            f"c{i}.json",
            echo_trace(model_name=f"c{i}", turns=turns, expects={"response_contains": ["hello"]}),
        )
    argv = ["run", "--suite", "suite", "--agent", "crashy_agent:factory", "--jobs", "2"]
    status, report = run_json(argv, capsys)
    assert status == 1
    verdicts = {case["name"]: (case["passed"], case["error"]) for case in report["cases"]}
    passed, error = verdicts.pop("c2")
    assert passed is False
    assert error.startswith("the agent's process exited with status 3 while running this case")
    assert all(passed for passed, _ in verdicts.values())


@pytest.mark.parametrize("total", [1, 2, 3, 5, 12, 20])
def test_shards_partition_the_suite(mixed_suite: Path, total: int) -> None:
    """Every case is in exactly one shard, and shard sizes differ by at most one."""
    suite = load_suite(str(mixed_suite))
    shards = [suite.sharded(Shard(index=i, total=total)).cases for i in range(1, total + 1)]
    names = [case.name for shard in shards for case in shard]
    assert sorted(names) == sorted(case.name for case in suite.cases)
    assert len(names) == len(set(names))
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_sharded_runs_merged_equal_the_unsharded_run(
    mixed_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three shards, merged: the same report as one run, every case field included."""
    whole_status, whole = run_json(["run", "--suite", str(mixed_suite)], capsys)
    parts = []
    for index in (1, 2, 3):
        part = tmp_path / f"part{index}.json"
        main(["run", "--suite", str(mixed_suite), "--shard", f"{index}/3", "--json", str(part)])
        parts.append(str(part))
    capsys.readouterr()
    junit = tmp_path / "merged.junit.xml"
    merged_status, merged = run_json(["merge", *parts, "--junit", str(junit)], capsys)
    assert merged_status == whole_status == 1
    assert without_timings(merged) == without_timings(whole)
    assert junit.read_text().count("<testcase ") == whole["total"]


def wire_case(index: int) -> CaseReport:
    """A case as a wire run reports it: request bodies beside the calls and tokens."""
    request = {"model": "gpt-test", "messages": [{"role": "user", "content": f"hi {index}"}]}
    call = RecordedCall(name="echo", arguments=f'{{"n":{index}}}', result="ok", success=True)
    gave_up = index == 2
    return CaseReport(
        name=f"case-{index}",
        source=f"evals/wire/c{index}.json",
        grades=(GradeResult(check="tools_used", passed=index != 1, detail="echo"),),
        error="AgentError: gave up" if gave_up else None,
        traceback="Traceback (most recent call last):\nAgentError: gave up\n" if gave_up else None,
        record=RunRecord(
            final_response=f"reply {index}",
            tool_calls=(call,),
            input_tokens=10 + index,
            output_tokens=index,
            requests=(request, {**request, "stream": False}),
        ),
        duration=0.5 + index,
    )


def test_merging_the_shards_of_a_wire_run_gives_the_unsharded_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each case comes back whole from its part, request bodies included: the same bytes."""
    cases = tuple(wire_case(index) for index in range(3))
    started = "2026-01-02T03:04:05.678Z"

    def report(share: tuple[CaseReport, ...], **sharding: Any) -> SuiteReport:
        return SuiteReport(
            suite="wire",
            directory="evals/wire",
            mode="replay",
            cases=share,
            started_at=started,
            duration=4.0,
            **sharding,
        )

    parts = []
    for index, share in ((1, cases[:2]), (2, cases[2:])):
        part = tmp_path / f"part{index}.json"
        sharded = report(share, shard=Shard(index=index, total=2), suite_total=3)
        part.write_bytes(to_json(sharded, git_commit="abc123"))
        parts.append(str(part))
    merged = tmp_path / "merged.json"
    assert main(["merge", *parts, "--json", str(merged)]) == 1
    capsys.readouterr()
    whole = to_json(report(cases), git_commit="abc123")
    assert json.loads(merged.read_bytes())["cases"][0]["requests"][0]["model"] == "gpt-test"
    assert merged.read_bytes() == whole


def test_merge_refuses_a_part_of_a_newer_schema_version(
    mixed_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A part this harness cannot fully read is refused, exit 2, one line naming it."""
    first, second = shard_parts(mixed_suite, tmp_path)
    document = json.loads(Path(second).read_text())
    document["schema_version"] = SCHEMA_VERSION + 1
    Path(second).write_text(json.dumps(document))
    capsys.readouterr()
    assert main(["merge", first, second]) == 2
    version = SCHEMA_VERSION + 1
    assert capsys.readouterr().err == (
        f"harness: {second}: report schema_version {version} is newer than this harness\n"
    )


def test_bad_fixture_fails_every_shard(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Load validation (duplicates included) covers the whole suite in every shard."""
    write_fixture("a.json", echo_trace(model_name="same"))
    suite = write_fixture("b.json", echo_trace(model_name="same")).parent
    for index in (1, 2):
        assert main(["run", "--suite", str(suite), "--shard", f"{index}/2"]) == 2
        assert "duplicate case name" in capsys.readouterr().err


def test_an_empty_shard_passes(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """More shards than cases: the spare shard has nothing to fail."""
    suite = write_fixture("a.json", echo_trace()).parent
    assert main(["run", "--suite", str(suite), "--shard", "2/2"]) == 0
    out = capsys.readouterr().out
    assert "no case ran in " in out
    assert "; shard 2/2 of a 1-case suite" in out


@pytest.mark.parametrize(
    ("spec", "env", "expected"),
    [
        ("2/4", {}, (2, 4)),
        (" 1 / 1 ", {}, (1, 1)),
        ("auto", {"CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "5"}, (3, 5)),
    ],
)
def test_shard_specs(spec: str, env: dict[str, str], expected: tuple[int, int]) -> None:
    """I/N is 1-based; auto reads GitLab's CI_NODE_INDEX/CI_NODE_TOTAL."""
    shard = parse_shard(spec, env)
    assert (shard.index, shard.total) == expected


@pytest.mark.parametrize("spec", ["0/2", "3/2", "two/4", "1-4", "auto"])
def test_bad_shard_specs_are_usage_errors(spec: str) -> None:
    """Out of range, malformed, or auto without the variables."""
    with pytest.raises(UsageError):
        parse_shard(spec, {})


def shard_parts(mixed_suite: Path, tmp_path: Path, total: int = 2) -> list[str]:
    parts = []
    for index in range(1, total + 1):
        part = tmp_path / f"p{index}.json"
        main(
            ["run", "--suite", str(mixed_suite), "--shard", f"{index}/{total}", "--json", str(part)]
        )
        parts.append(str(part))
    return parts


def test_merge_refuses_a_missing_shard(mixed_suite: Path, tmp_path: Path) -> None:
    """Every shard's report is needed."""
    first, _ = shard_parts(mixed_suite, tmp_path)
    with pytest.raises(MergeError, match=r"shard\(s\) 2/2 missing"):
        merge_reports([(first, read_part(first))])


def test_merge_refuses_overlap_and_repeated_shards(mixed_suite: Path, tmp_path: Path) -> None:
    """A shard given twice is refused."""
    first, second = shard_parts(mixed_suite, tmp_path)
    with pytest.raises(MergeError, match=r"shard 1/2 is also given as"):
        merge_reports(
            [(first, read_part(first)), (second, read_part(second)), (first, read_part(first))]
        )


def test_merge_refuses_parts_of_different_suites_or_modes(
    mixed_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Parts must come from one suite, one mode, one commit: exit 2 with the culprit named."""
    first, second = shard_parts(mixed_suite, tmp_path)
    document = json.loads(Path(second).read_text())
    document["suite"] = "other"
    Path(second).write_text(json.dumps(document))
    capsys.readouterr()
    assert main(["merge", first, second]) == 2
    assert (
        capsys.readouterr().err == f"harness: {second}: suite is 'other', but {first} has 'suite'\n"
    )
    document["suite"], document["mode"] = "suite", "live"
    Path(second).write_text(json.dumps(document))
    assert main(["merge", first, second]) == 2
    assert "mode is 'live'" in capsys.readouterr().err


def test_merge_refuses_a_case_reported_twice(mixed_suite: Path, tmp_path: Path) -> None:
    """Overlapping cases (e.g. a part edited by hand) are refused."""
    first, second = shard_parts(mixed_suite, tmp_path)
    document = json.loads(Path(second).read_text())
    document["cases"].append(json.loads(Path(first).read_text())["cases"][0])
    Path(second).write_text(json.dumps(document))
    with pytest.raises(MergeError, match=r'case "case-00" is also in'):
        merge_reports([(first, read_part(first)), (second, read_part(second))])


def test_jobs_flag_validation(capsys: pytest.CaptureFixture[str]) -> None:
    """--jobs takes a positive number or auto."""
    assert main(["run", "--jobs", "0"]) == 2
    assert "expected a whole number from 1 to 1000000, or auto" in capsys.readouterr().err


def test_run_suite_with_jobs_keeps_order_in_process(
    mixed_suite: Path, worker_runs: list[int]
) -> None:
    """The library call gives the same reports as the serial one."""
    suite = load_suite(str(mixed_suite))
    serial = run_suite(suite, setup=Setup())
    parallel = run_suite(suite, setup=Setup(), jobs=2)
    assert worker_runs == [12]
    assert [(c.name, c.passed, c.error, c.grades) for c in parallel.cases] == [
        (c.name, c.passed, c.error, c.grades) for c in serial.cases
    ]


def test_small_suite_with_the_builtin_loop_skips_workers(
    mixed_suite: Path, worker_calls: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below PARALLEL_MIN cases the reference loop replays here; a project's tools still get
    their (supervised) workers, since their cases may take any time or crash."""
    import harness.pipeline.supervisor as supervisor

    supervised: list[tuple[int, int]] = []
    real = supervisor.run_supervised

    def counted(cases: Any, setup: Any, jobs: int) -> Any:
        supervised.append((len(cases), jobs))
        return real(cases, setup, jobs)

    monkeypatch.setattr(supervisor, "run_supervised", counted)
    suite = load_suite(str(mixed_suite))
    builtin = run_suite(suite, setup=Setup(), jobs=2)
    assert (worker_calls, supervised) == ([], [])
    project = run_suite(suite, setup=Setup(tools=upper_tools), jobs=2)
    assert supervised == [(12, 2)]
    assert [c.passed for c in builtin.cases] == [c.passed for c in project.cases]


@pytest.mark.parametrize("jobs", [1, 2], ids=["serial", "workers"])
def test_a_fixture_edited_after_the_load_runs_as_loaded(
    mixed_suite: Path, worker_runs: list[int], jobs: int
) -> None:
    """Cases are played from the suite as checked: a fixture is never read a second time."""
    suite = load_suite(str(mixed_suite))
    before = [c.passed for c in run_suite(suite, setup=Setup()).cases]
    for path in mixed_suite.glob("*.json"):
        path.write_text("{not json")
    after = run_suite(suite, setup=Setup(), jobs=jobs)
    assert [c.passed for c in after.cases] == before
    assert all(c.error is None or "JSON" not in c.error for c in after.cases)
    assert worker_runs == ([] if jobs == 1 else [12])


@pytest.fixture
def suite_with_rejects(write_fixture: WriteFixture) -> Path:
    """Forty fixtures, a few of them rejected for different reasons, one name twice."""
    for i in range(40):
        trace: Any = echo_trace(model_name=f"case-{i:02d}")
        if i == 7:
            trace = "{not json"
        elif i == 19:
            trace["turns"] = []
        elif i == 33:
            trace["model_name"] = "case-03"
        path = write_fixture(f"c{i:02d}.json", trace)
    return path.parent


def test_loading_in_workers_equals_loading_serially(
    suite_with_rejects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same cases, in order, and the same rejections, when workers share the load."""
    serial_cases, serial_problems = suite_module.load_cases(str(suite_with_rejects))
    real = pool.fork_shares
    shared: list[int] = []

    def counted(work: Any, items: Any, jobs: int, result_type: Any) -> Any:
        shares = real(work, items, jobs, result_type)
        shared.append(-1 if shares is None else len(shares))
        return shares

    monkeypatch.setattr(suite_module, "PARALLEL_MIN", 2)
    monkeypatch.setattr(pool, "_can_fork", lambda: True)  # other tests may leave threads
    monkeypatch.setattr(pool, "fork_shares", counted)
    parallel_cases, parallel_problems = suite_module.load_cases(str(suite_with_rejects), jobs=3)
    assert shared == [3]  # loaded in three shares, not serially
    assert parallel_cases == serial_cases
    assert [str(p) for p in parallel_problems] == [str(p) for p in serial_problems]
    assert len(serial_problems) == 3


def test_a_load_worker_that_dies_falls_back_to_loading_serially(
    suite_with_rejects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crashed load worker costs time, never cases: the parent loads the suite itself."""
    parent = os.getpid()
    load_paths = suite_module.load_paths
    serial_loads: list[int] = []

    def crash_in_workers(*args: Any) -> Any:
        if os.getpid() != parent:
            os._exit(3)
        serial_loads.append(len(args[1]))
        return load_paths(*args)

    monkeypatch.setattr(suite_module, "PARALLEL_MIN", 2)
    monkeypatch.setattr(pool, "_can_fork", lambda: True)
    monkeypatch.setattr(suite_module, "load_paths", crash_in_workers)
    cases, problems = suite_module.load_cases(str(suite_with_rejects), jobs=2)
    assert serial_loads[-1] == 40  # the workers died; the parent loaded every file itself
    assert len(cases) == 37
    assert len(problems) == 3


def test_loading_falls_back_to_serial_when_no_process_can_be_forked(
    suite_with_rejects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of processes (fork fails): the suite still loads, in this process."""

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(suite_module, "PARALLEL_MIN", 2)
    monkeypatch.setattr(pool, "_can_fork", lambda: True)
    monkeypatch.setattr(os, "fork", no_fork)
    cases, problems = suite_module.load_cases(str(suite_with_rejects), jobs=3)
    assert [case.name for case in cases] == [
        case.name for case in suite_module.load_cases(str(suite_with_rejects))[0]
    ]
    assert len(problems) == 3
