"""The bench's figures as printed tables, the targets' verdicts last."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

from tests.bench.reuse import reuse_table
from tests.bench.targets import verdicts

__all__ = ["render"]


def _table(rows: Sequence[Sequence[object]], headers: list[str]) -> str:
    return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)


def _start(start: dict[str, Any]) -> list[str]:
    rows = [
        ("python -c pass", f"{start['python_c_pass_s'] * 1e3:.1f} ms"),
        ("harness run", f"{start['harness_run_s'] * 1e3:.1f} ms"),
        ("harness run - python -c pass", f"{start['extra_s'] * 1e3:.1f} ms"),
        ("the same, CPU time", f"{start['extra_cpu_s'] * 1e3:.1f} ms"),
        ("python -c 'import harness'", f"{start['import_harness_s'] * 1e3:.1f} ms"),
        ("harness modules: import harness", str(start["import_harness_modules"])),
    ]
    return [f"cold start ({start['cases']}-case suite, median)", _table(rows, [])]


def _load(load: list[dict[str, Any]]) -> list[str]:
    rows = [
        (
            row["mix"],
            row["fixtures"],
            f"{row['megabytes']:.1f}",
            f"{row['read_files_s'] * 1e3:.0f}",
            f"{row['json_loads_s'] * 1e3:.0f}",
            f"{row['harness_load_s'] * 1e3:.0f}",
            f"{row['harness_fixtures_per_s']:,.0f}",
            f"{row['load_vs_read']:.2f}x",
        )
        for row in load
    ]
    headers = ["suite", "fixtures", "MB", "read ms", "json.loads ms", "harness ms", "fixtures/s"]
    return ["load and validate (median)", _table(rows, [*headers, "vs read"])]


def _runs(runs: list[dict[str, Any]]) -> list[str]:
    rows = [
        (
            row["mix"],
            row["cases"],
            row["jobs"],
            f"{row['wall_s']:.3f}",
            f"{row['per_case_us']:.0f}",
            f"{row['per_case_gross_us']:.0f}",
            f"{row['peak_rss_mib']:.0f}",
        )
        for row in runs
    ]
    headers = ["suite", "cases", "jobs", "wall s", "us/case", "gross", "peak RSS MiB"]
    return [
        "harness run end to end (median; per case net of harness start-up, and of python's)",
        _table(rows, headers),
    ]


def _outputs(outputs: list[dict[str, Any]], memory: list[dict[str, Any]]) -> list[str]:
    by_output = [
        (
            row["output"],
            row["cases"],
            f"{row['wall_s']:.3f}",
            f"{row['per_case_us']:.0f}",
            f"{row['peak_rss_mib']:.0f}",
        )
        for row in outputs
    ]
    peaks = [
        (
            row["cases"],
            row["exit_status"],
            f"{row['wall_s']:.2f}",
            f"{row['peak_rss_mib']:.0f}",
            f"{row['vs_smallest']:.2f}x" if "vs_smallest" in row else "",
        )
        for row in memory
    ]
    return [
        "harness run by output, the mix (median; per case net of harness start-up)",
        _table(by_output, ["output", "cases", "wall s", "us/case", "peak RSS MiB"]),
        "",
        "peak RSS, every output on (the mix)",
        _table(peaks, ["cases", "exit", "wall s", "peak RSS MiB", "vs smallest"]),
    ]


def _peers(peers: dict[str, Any]) -> list[str]:
    rows = [
        (
            name,
            f"{row['all_cases_s']:,.2f}",
            f"{row['per_case_us']:,.0f}",
            f"{row['one_case_s'] * 1e3:,.0f}",
            f"{row['peak_rss_mib']:,.0f}",
        )
        for name, row in peers.items()
        if isinstance(row, dict)
    ]
    headers = [
        "",
        f"{peers['cases']}-case run s",
        "us/case",
        "1-case run ms",
        "peak RSS MiB",
    ]
    peer = f"pydantic-evals {peers['peer_version']}" if "peer_version" in peers else "its peer"
    title = f"the echo suite, serial, the harness against {peer} with FunctionModel (median)"
    return [title, _table(rows, headers)]


def _supervision(supervision: dict[str, Any]) -> list[str]:
    return [
        f"a project agent, supervised ({supervision['cases']} cases, median): "
        f"{supervision['supervised_s']:.3f} s against {supervision['in_process_s']:.3f} s "
        f"in process, {supervision['extra_per_case_us']:.0f} us/case more "
        f"({supervision['ratio']:.2f}x)"
    ]


def _jobs(jobs: list[dict[str, Any]]) -> list[str]:
    rows = [
        (
            row["agent"],
            row["cases"],
            f"{row['serial_s']:.3f}",
            f"{row['jobs_2_s']:.3f}",
            f"{row['jobs_auto_s']:.3f}",
            f"{row['jobs_2_vs_serial']:.2f}x",
            f"{row['auto_vs_serial']:.2f}x",
        )
        for row in jobs
    ]
    headers = ["agent", "cases", "serial s", "jobs 2 s", "auto s", "2 vs 1", "auto vs 1"]
    return ["workers (median)", _table(rows, headers)]


def render(results: dict[str, Any]) -> str:
    """Every figure in `results` as printed text, the targets' verdicts last."""
    sections = [
        [f"machine: {results['machine']}"],
        _start(results["start"]),
        _load(results["load"]),
        _runs(results["run"]),
        _outputs(results["outputs"], results["memory"]),
        _supervision(results["supervision"]),
        _jobs(results["jobs"]),
        reuse_table(results["reuse"]),
        _peers(results["peers"]),
        verdicts(results),
    ]
    return "\n\n".join("\n".join(section) for section in sections)
