"""Merging shard reports: parts read as fixtures are, shards and sizes that cannot be refused."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from harness._cli.main import main
from harness.errors import MergeError
from harness.fixtures.shard import Shard
from harness.grading.result import GradeResult
from harness.reports import artifact
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.shards import merge_reports, read_part
from harness.reports.writers import to_json

SUITE = 6
"""Cases in the whole suite the parts come from: c0 … c5."""


def part(
    tmp_path: Path,
    index: int,
    total: int,
    *,
    suite_total: int = SUITE,
    interrupted: str | None = None,
    drop: int = 0,
) -> str:
    """Shard `index`/`total` of the six-case suite, as `harness run --json` writes it."""
    names = [f"c{i}" for i in range(SUITE)][index - 1 :: total]
    names = names[: len(names) - drop]
    grades = (GradeResult(check="c", passed=True, detail="d"),)
    cases = tuple(CaseReport(name=n, source=f"{n}.json", grades=grades) for n in names)
    report = SuiteReport(
        suite="suite",
        directory="evals/suite",
        mode="replay",
        cases=cases,
        shard=Shard(index=index, total=total),
        suite_total=suite_total,
        interrupted=interrupted,
    )
    path = tmp_path / f"part-{index}-{total}-{suite_total}-{interrupted}-{drop}.json"
    document = json.loads(to_json(report))
    document["suite_total"] = suite_total  # as given, even where a run could not write it
    path.write_text(json.dumps(document))
    return str(path)


def merged_exit(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["merge", *argv])
    return status, capsys.readouterr().err


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "folder"])
def test_merge_refuses_a_part_that_is_not_a_regular_file_at_once(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO with no writer, /dev/zero or a folder: exit 2 at once, never a hang or an OOM."""
    if kind == "fifo":
        target = tmp_path / "part.json"
        os.mkfifo(target)
        path = str(target)
    else:
        path = kind if kind.startswith("/") else str(tmp_path)
    outcome: list[tuple[int, str]] = []
    worker = threading.Thread(target=lambda: outcome.append(merged_exit([path], capsys)))
    worker.start()
    worker.join(60)  # a generous bound, not a timing assertion: a blocked open never returns
    assert not worker.is_alive(), "merge blocked on the part"
    status, err = outcome[0]
    assert status == 2
    assert err.startswith(f"harness: {path}: is ")
    assert "not a report file" in err
    assert len(err.splitlines()) == 1


def test_a_part_over_the_size_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound is checked on the file's size, so a huge part is never loaded."""
    path = part(tmp_path, 1, 1)
    monkeypatch.setattr(artifact, "MAX_ARTIFACT_BYTES", 10)
    with pytest.raises(MergeError, match=r"is \d+ bytes, over the 10-byte limit for a report"):
        read_part(path)


@pytest.mark.parametrize(("index", "total"), [(0, 3), (9, 3), (1, 0), (-1, 3)])
def test_a_shard_out_of_range_is_refused(
    index: int, total: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 0/3 or 9/3 cannot be: the part is named, exit 2."""
    good = [part(tmp_path, i, 3) for i in (1, 2, 3)]
    document = json.loads(Path(good[0]).read_text())
    document["shard"] = {"index": index, "total": total}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    status, err = merged_exit([str(bad), *good[1:]], capsys)
    assert status == 2
    assert err == f"harness: {bad}: shard {index}/{total} is out of range (I/N needs 1 <= I <= N)\n"


@pytest.mark.parametrize("suite_total", [10**15, -4, 2])
def test_an_absurd_suite_total_is_refused(
    suite_total: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite size the part's own cases contradict is refused, whatever the other parts say."""
    parts = [part(tmp_path, i, 2, suite_total=suite_total) for i in (1, 2)]
    status, err = merged_exit(parts, capsys)
    assert status == 2
    assert err.startswith(f"harness: {parts[0]}: suite_total {suite_total} ")
    assert len(err.splitlines()) == 1


def test_parts_that_disagree_on_the_suite_size_are_refused(tmp_path: Path) -> None:
    """Each part must describe the same suite."""
    first, second = part(tmp_path, 1, 2), part(tmp_path, 2, 2, suite_total=7)
    with pytest.raises(MergeError, match=r"suite_total is 7, but .* has 6"):
        merge_reports([(first, read_part(first)), (second, read_part(second))])


def test_a_huge_shard_count_names_a_few_missing_shards(tmp_path: Path) -> None:
    """`1/1000000000000` of a one-case suite: refused at once, never listing every shard."""
    path = part(tmp_path, 1, 1, suite_total=1)
    document = json.loads(Path(path).read_text())
    document["shard"] = {"index": 1, "total": 10**12}
    Path(path).write_text(json.dumps(document))
    with pytest.raises(
        MergeError, match=r"shard\(s\) 2/\d+, 3/\d+, 4/\d+, 5/\d+, 6/\d+ and \d+ more"
    ):
        merge_reports([(path, read_part(path))])


def test_an_interrupted_shard_makes_the_merge_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The merge exits as the shard did (143 for SIGTERM) and the merged report keeps it."""
    parts = [part(tmp_path, 1, 2), part(tmp_path, 2, 2, interrupted="SIGTERM", drop=1)]
    out = tmp_path / "merged.json"
    assert main(["merge", *parts, "--json", str(out)]) == 128 + 15
    document = json.loads(out.read_text())
    assert document["interrupted"] == "SIGTERM"
    assert document["all_passed"] is False
    assert [case["name"] for case in document["cases"]] == ["c0", "c1", "c2", "c3", "c4"]
    assert "INTERRUPTED by SIGTERM" in capsys.readouterr().out


def test_a_short_part_that_was_not_interrupted_is_refused(tmp_path: Path) -> None:
    """Only an interrupted shard may hold fewer cases than its share."""
    parts = [part(tmp_path, 1, 2), part(tmp_path, 2, 2, drop=1)]
    with pytest.raises(MergeError, match="it holds 2 case"):
        merge_reports([(path, read_part(path)) for path in parts])


def test_whole_parts_still_merge(tmp_path: Path) -> None:
    """The checks refuse nothing that a real sharded run writes."""
    parts = [part(tmp_path, i, 4) for i in (1, 2, 3, 4)]
    report = merge_reports([(path, read_part(path)) for path in parts])
    assert [case.name for case in report.cases] == [f"c{i}" for i in range(SUITE)]
    assert report.interrupted is None
    assert report.all_passed


@pytest.fixture
def shards(tmp_path: Path) -> tuple[Path, list[str]]:
    """A four-case suite (b fails) and the argv of its two shards' runs (report: --json)."""
    from tests.builders import echo_trace

    folder = tmp_path / "suite"
    folder.mkdir()
    for name in "abcd":
        expects = {"response_contains": ["never said" if name == "b" else "hello"]}
        trace = echo_trace(model_name=name, expects=expects)
        (folder / f"{name}.json").write_text(json.dumps(trace))
    return folder, ["run", "--suite", str(folder)]


@pytest.mark.parametrize(
    ("select", "shown"),
    [(["-k", "not b"], "-k 'not b'"), (["{suite}/a.json", "{suite}/c.json"], "a.json")],
    ids=["keyword", "paths"],
)
def test_merge_refuses_a_part_run_on_a_selection(
    shards: tuple[Path, list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    select: list[str],
    shown: str,
) -> None:
    """Shards run with -k or paths leave a failing case out: the merge says so, exit 2."""
    folder, run = shards
    paths = [str(tmp_path / f"part{i}.json") for i in (1, 2)]
    chosen = [item.format(suite=folder) for item in select]
    for index, path in enumerate(paths, 1):
        main([*run, *chosen, "--shard", f"{index}/2", "--json", path])
    merged = tmp_path / "merged.json"
    status, err = merged_exit([*paths, "--json", str(merged)], capsys)
    assert status == 2
    assert err.startswith(f"harness: {paths[0]}: ran a selection of the suite (")
    assert shown in err
    assert len(err.splitlines()) == 1
    assert not merged.exists()


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        ({"skipped": "edited", "passed": False}, "is skipped, but it has grades: it was run"),
        ({"passed": True}, "is passed, but a grade failed"),
        ({"passed": True, "grades": []}, "is passed, but it has no grade"),
        ({"error": "boom"}, "is failed, but"),
    ],
    ids=["skipped-with-failed-grades", "passed-with-failed-grade", "passed-no-grade", "error"],
)
def test_merge_refuses_a_case_whose_status_contradicts_its_grades(
    shards: tuple[Path, list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: dict[str, object],
    says: str,
) -> None:
    """A part's case edited against its evidence is refused by part and case, never merged."""
    _, run = shards
    paths = [str(tmp_path / f"part{i}.json") for i in (1, 2)]
    for index, path in enumerate(paths, 1):
        assert main([*run, "--shard", f"{index}/2", "--json", path]) == (0 if index == 1 else 1)
    document = json.loads(Path(paths[1]).read_text())
    index = next(i for i, case in enumerate(document["cases"]) if case["name"] == "b")
    if "error" in edit:  # an errored case marked passed: the error is the contradiction
        edit = {"error": "boom", "passed": True, "grades": document["cases"][index]["grades"]}
        says = "is passed, but it has an error"
    document["cases"][index].update(edit)
    Path(paths[1]).write_text(json.dumps(document))
    status, err = merged_exit(paths, capsys)
    assert status == 2
    assert err == f'harness: {paths[1]}: $.cases[{index}]: case "b" {says}\n'


def test_merge_refuses_a_part_nested_too_deep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A part nested 100,000 deep is one line, exit 2, not a traceback."""
    deep = tmp_path / "deep.json"
    deep.write_text('{"schema_version": 1, "extra": ' + "[" * 100_000 + "]" * 100_000 + "}")
    status, err = merged_exit([str(deep)], capsys)
    assert status == 2
    assert err == f"harness: {deep}: not a harness JSON report: it nests too deep\n"


@pytest.mark.parametrize("target", ["part", "config", "other-output"])
def test_merge_outputs_never_replace_a_part_or_another_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    """--json onto a part being merged, a config, or the other output: exit 2, all intact."""
    paths = [part(tmp_path, index, 2) for index in (1, 2)]
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.harness]\n")
    before = {path: Path(path).read_bytes() for path in [*paths, str(config)]}
    if target == "other-output":
        argv = [*paths, "--json", str(tmp_path / "m"), "--junit", str(tmp_path / "m")]
        says = f"--junit {tmp_path / 'm'}: the same file as --json"
    elif target == "part":
        argv, says = [*paths, "--json", paths[1]], f"--json {paths[1]}: the same file as the part"
    else:
        argv, says = [*paths, "--json", str(config)], "it exists and is not a harness JSON report"
    status, err = merged_exit(argv, capsys)
    assert status == 2
    assert err.startswith("harness: --")
    assert says in err
    assert err.count("\n") == 1
    assert {path: Path(path).read_bytes() for path in before} == before
    assert not (tmp_path / "m").exists()


def test_merge_refuses_a_part_that_writes_a_key_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`"grades"` written twice would hide the failed check behind the passing one: exit 2."""
    paths = [part(tmp_path, index, 2) for index in (1, 2)]
    text = Path(paths[0]).read_text()
    failed = '"grades": [{"check": "c", "passed": false, "detail": "d"}], "grades"'
    forged = text.replace('"grades"', failed, 1)
    assert forged != text
    Path(paths[0]).write_text(forged)
    status, err = merged_exit(paths, capsys)
    assert status == 2
    assert err == f'harness: {paths[0]}: $.cases[0]: key "grades" appears twice\n'
