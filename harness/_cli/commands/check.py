"""`harness check`: validate fixtures for authors: load rules, a green replay, mutation strength.

It takes the agent, tool and wire flags of `harness run` (`add_agent_arguments`), so every
agent `run` can replay, `check` can measure."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import msgspec

from harness._cli.agent_arguments import add_agent_arguments, agent_settings
from harness._cli.arguments import typed
from harness.config import find_pyproject, load_config
from harness.pipeline.setup import setup_from
from harness.text import printable

if TYPE_CHECKING:
    from harness.authoring.check_report import CheckReport

__all__ = ["register"]


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a score from 0 to 1, got {text!r}")
    return value


def register(commands: Any) -> None:
    """Add `check` to the subcommands."""
    check = commands.add_parser(
        "check", help="check fixtures: load rules, falsifiability, mutation strength, privacy"
    )
    check.add_argument(
        "--suite",
        metavar="DIR",
        action="extend",
        nargs="+",
        help="suite folders (--suite a b, or --suite a --suite b; default: config suite_dir)",
    )
    check.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="what stdout shows (default: table)",
    )
    check.add_argument(
        "--min-strength",
        metavar="SCORE",
        type=_fraction,
        help="fail fixtures scoring below, 0-1 (default: none)",
    )
    check.add_argument(
        "--may-fail",
        action="store_true",
        help="a replay that fails or errors is a warning, not an error: for a capability "
        "suite the agent does not pass yet (default: off)",
    )
    check.add_argument(
        "--config", metavar="PATH", help="pyproject.toml to read (default: the nearest)"
    )
    add_agent_arguments(check)
    typed(check)
    check.set_defaults(handler=check_command)


def check_command(args: argparse.Namespace) -> int:
    """Check the suites, print what was found; 0 clean, 1 an error found."""
    # Deferred: `harness --help` imports every command module; this command's machinery
    # would slow it.
    from harness.authoring.check_report import check_suites
    from harness.authoring.privacy import PrivacyLint

    config_path = args.config if args.config is not None else find_pyproject()
    config = load_config(config_path)
    setup, tool_names = setup_from(config, config_path, agent_settings(args))
    report = check_suites(
        args.suite or [config.suite_dir],
        setup=setup,
        tool_names=tool_names,
        privacy=PrivacyLint(config.privacy_allow),
        min_strength=args.min_strength,
        may_fail=args.may_fail,
        limits=config.limits,
    )
    if args.format == "json":
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(report), indent=2).decode() + "\n")
    else:
        print(render_check(report))
    return report.exit_code()


def render_check(report: CheckReport) -> str:
    """The check report as text: findings, balance, then mutation strength per fixture."""
    from harness.reports.columns import lay_out  # deferred: as above

    lines = []
    if report.findings:
        rows: list[tuple[str, ...]] = [
            (f.severity, f.rule, printable(f.file), f.location or "", printable(f.message))
            for f in report.findings
        ]
        lines += [*lay_out(["", "rule", "file", "where", "finding"], rows), ""]
    for balance in report.balances:
        lines.append(
            f"{balance.suite}: {balance.positive} positive, {balance.negative} negative, "
            f"{balance.undeclared} without a kind"
        )
    rows = [
        (
            printable(s.name),
            s.kind or "-",
            f"{s.killed}/{s.total}" if s.score is not None else "-",
            f"{s.score:.2f}" if s.score is not None else "-",
            printable(", ".join(s.survivors) or s.note or "none"),
        )
        for s in report.strengths
    ]
    headers = ["fixture", "kind", "killed", "score", "surviving mutants"]
    lines += ["", *lay_out(headers, rows), ""]
    hinted = [s for s in report.strengths if s.hints]
    if hinted:
        lines.append("how to make them stronger:")
        for s in hinted:
            score = f"{s.score:.2f}" if s.score is not None else "-"
            lines.append(f"  {printable(s.name)} ({printable(s.file)}, strength {score}):")
            lines += [f"    {printable(hint)}" for hint in s.hints]
        lines.append("")
    lines.append(verdict(report))
    return "\n".join(lines)


def verdict(report: CheckReport) -> str:
    """The last line: `clean` only when there is nothing at all to report."""
    warnings = len(report.findings) - report.errors
    hinted = sum(bool(s.hints) for s in report.strengths)
    counts = f"{report.errors} error(s), {warnings} warning(s), {hinted} fixture(s) with hints"
    if report.errors:
        return f"problems found: {counts}"
    if warnings or hinted:
        return f"no errors, but not clean: {counts}"
    return f"clean: {counts}"
