"""What `nox -s mutants` runs: a seeded sample of the verdict modules' mutants, scored per module.

    python -m tests.mutants.session [--seed 37] [--per-module 30] [--module dialect ...]

mutmut (configured in pyproject's `[tool.mutmut]`) writes every mutant of the modules named there
under `mutants/`; this takes `--per-module` of each module's mutants (all of them with 0), chosen
by `--seed`, and lets mutmut run each on the tests that reach its module. A survivor
listed in `tests/mutants/equivalent.toml` (its name and the line it writes, with why it cannot
change behaviour) is left out of the score. Each module's score is the share of the others
killed; the session fails when one is under `BAR`, and prints every other survivor's diff.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

BAR = 0.95
"""The share of behaviour-changing mutants each module's tests must kill."""
EQUIVALENT = Path(__file__).with_name("equivalent.toml")
MUTANTS = Path("mutants")
KILLED = frozenset({1, 3, 24, -24, 152, 255, 36, -9, -11})
"""mutmut's exit codes for a mutant the tests caught: failed, errored, timed out or killed."""


@dataclass(frozen=True, kw_only=True)
class Equivalent:
    """A survivor judged unable to change behaviour."""

    line: str
    """The mutated line as mutmut writes it: the judgement is stale when the mutant changes."""
    reason: str
    """Why no user could tell it from the original."""


@dataclass(frozen=True, kw_only=True)
class Score:
    """One module's sample, run."""

    module: str
    """The source file."""
    killed: list[str]
    """Mutants the tests caught."""
    survived: list[str]
    """Mutants no test caught (untested ones included), not judged equivalent."""
    equivalent: list[str]
    """Survivors judged equivalent."""

    @property
    def share(self) -> float:
        """The share of behaviour-changing mutants killed."""
        counted = len(self.killed) + len(self.survived)
        return len(self.killed) / counted if counted else 1.0


def load_equivalents(path: Path = EQUIVALENT) -> dict[str, Equivalent]:
    """The survivors judged equivalent, by mutant name."""
    with path.open("rb") as file:
        table = tomllib.load(file)
    return {
        name: Equivalent(line=str(entry["line"]), reason=str(entry["reason"]))
        for name, entry in table.get("mutant", {}).items()
    }


def sample(
    keys_by_module: Mapping[str, Sequence[str]], per_module: int, seed: int
) -> dict[str, list[str]]:
    """`per_module` mutant names of each module (all of them with 0), the same for a seed."""
    chosen: dict[str, list[str]] = {}
    for module, keys in sorted(keys_by_module.items()):
        ordered = sorted(keys)
        if 0 < per_module < len(ordered):
            ordered = sorted(random.Random(f"{seed}:{module}").sample(ordered, per_module))
        chosen[module] = ordered
    return chosen


def mutated_line(diff: str) -> str:
    """The first line a mutant's diff adds, stripped: what an equivalence judgement names."""
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            return line[1:].strip()
    return ""


def score(
    module: str,
    exit_codes: Mapping[str, int | None],
    equivalents: Mapping[str, Equivalent],
    lines: Mapping[str, str],
) -> Score:
    """A module's sample scored: a survivor counts unless judged equivalent for the same line."""
    killed, survived, equivalent = [], [], []
    for name, code in sorted(exit_codes.items()):
        if code in KILLED:
            killed.append(name)
        elif name in equivalents and equivalents[name].line == lines.get(name):
            equivalent.append(name)
        else:
            survived.append(name)
    return Score(module=module, killed=killed, survived=survived, equivalent=equivalent)


def widen_to_modules(stats: Path) -> None:
    """Map every function of a module to all the tests that reach any function of it."""
    data = json.loads(stats.read_text(encoding="utf-8"))
    tests: dict[str, list[str]] = data["tests_by_mangled_function_name"]
    by_module: dict[str, set[str]] = {}
    for function, reaching in tests.items():
        by_module.setdefault(function.rpartition(".")[0], set()).update(reaching)
    data["tests_by_mangled_function_name"] = {
        function: sorted(by_module[function.rpartition(".")[0]]) for function in tests
    }
    stats.write_text(json.dumps(data, indent=4), encoding="utf-8")


def _generate() -> dict[str, list[str]]:
    """Write every mutant under mutants/ and return their names by source file."""
    from mutmut.__main__ import create_mutants
    from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir

    # An empty .git marks mutants/ as the repository root for the reports' relative paths
    # (harness/reports/location.py), as the checkout is for the tests; git itself skips it.
    (MUTANTS / ".git").mkdir(parents=True, exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    create_mutants(2)
    return {module: sorted(codes) for module, codes in _exit_codes().items()}


def _exit_codes() -> dict[str, dict[str, int | None]]:
    found: dict[str, dict[str, int | None]] = {}
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        module = meta.relative_to(MUTANTS).as_posix().removesuffix(".meta")
        found[module] = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return found


def _diff(name: str) -> str:
    shown = subprocess.run(
        [sys.executable, "-m", "mutmut", "show", name], capture_output=True, text=True, check=False
    )
    return shown.stdout


def main(argv: Sequence[str] | None = None) -> int:
    """Generate, sample, run and score; 0 when every module reaches `BAR`."""
    parser = argparse.ArgumentParser(prog="nox -s mutants --", description=__doc__)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--per-module", type=int, default=30, help="0 runs every mutant")
    parser.add_argument(
        "--module", action="append", default=[], help="only modules whose path has this"
    )
    args = parser.parse_args(argv)
    shutil.rmtree(MUTANTS, ignore_errors=True)  # results of an earlier tree never count
    every = {
        module: keys
        for module, keys in _generate().items()
        if not args.module or any(part in module for part in args.module)
    }
    chosen = sample(every, args.per_module, args.seed)
    names = [name for keys in chosen.values() for name in keys]
    if not names:
        print("no mutants chosen", file=sys.stderr)
        return 2
    mutmut = [sys.executable, "-m", "mutmut", "run", "--max-children", "2"]
    # The first run collects which tests reach which function, then each mutant is run on the
    # tests that reach any function of its module: a function called once under a cache
    # (compiled patterns, credential patterns) would otherwise get only the first such test.
    ran = subprocess.run([*mutmut, names[0]], check=False)
    if ran.returncode == 0:
        widen_to_modules(MUTANTS / "mutmut-stats.json")
        ran = subprocess.run([*mutmut, *names], check=False)
    codes = _exit_codes()
    unrun = [
        name for module, keys in chosen.items() for name in keys if codes[module][name] is None
    ]
    if ran.returncode != 0 or unrun:
        print(f"mutmut did not run every mutant (status {ran.returncode})", file=sys.stderr)
        return 2
    equivalents = load_equivalents()
    scores: list[Score] = []
    for module, keys in chosen.items():
        results = {name: codes[module][name] for name in keys}
        lines = {
            name: mutated_line(_diff(name))
            for name, code in results.items()
            if code not in KILLED and name in equivalents
        }
        scores.append(score(module, results, equivalents, lines))
    return _report(scores)


def _report(scores: Sequence[Score]) -> int:
    print(f"\n{'module':<36} {'killed':>7} {'survived':>9} {'equivalent':>11} {'score':>7}")
    for each in scores:
        print(
            f"{each.module:<36} {len(each.killed):>7} {len(each.survived):>9} "
            f"{len(each.equivalent):>11} {each.share:>7.1%}"
        )
    for each in scores:
        for name in each.survived:
            print(f"\n# survived: {name}\n{_diff(name)}")
    low = [each.module for each in scores if each.share < BAR]
    if low:
        print(f"\nunder {BAR:.0%} of behaviour-changing mutants killed: {', '.join(low)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
