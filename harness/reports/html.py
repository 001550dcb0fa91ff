"""The HTML report: one self-contained page drawn from the JSON report document.

The page needs nothing but itself: its style and script are inline (package data under
`harness/reports/page/`), allowed by a Content-Security-Policy that names their hashes and
nothing else, so no text of a fixture or of an agent can run script or load anything. The
header is escaped HTML; the cases are JSON in a `<script type="application/json">` element
(`<`, `>` and `&` escaped, like every non-ASCII character), which the script puts into the page
through `textContent` only, in chunks, each case's details built when it is opened.

Its size is bounded: each text is cut to `TEXT_LIMIT` characters, at most `FULL_CASES` cases
(and `DETAIL_BUDGET` characters) carry their details, at most `LISTED_CASES` are listed, failing
and errored cases first; the page says what it left out.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import re
import stat
from collections.abc import Mapping
from html import escape
from importlib import resources
from string import Template
from typing import TYPE_CHECKING, Any

from harness.errors import ArtifactError
from harness.reports.artifact import write_atomic
from harness.reports.document import decode_document
from harness.reports.location import relative_path
from harness.reports.story import case_story, status
from harness.text import one_line

if TYPE_CHECKING:
    from harness.reports.baseline import Comparison
    from harness.reports.document import CaseDocument, ReportDocument

__all__ = [
    "DETAIL_BUDGET",
    "FULL_CASES",
    "LISTED_CASES",
    "TEXT_LIMIT",
    "embedded_json",
    "page_part",
    "pages_beside",
    "policy",
    "render_html",
    "write_html",
]

TEXT_LIMIT = 5_000
"""Characters of one text (a reply, a result, a request, an output) the page holds."""
FULL_CASES = 2_000
"""Cases whose details (timeline, checks, output) the page holds; the rest are listed only."""
DETAIL_BUDGET = 8_000_000
"""Characters of details the page holds in all; past it, cases are listed only."""
LISTED_CASES = 20_000
"""Cases the page lists at all."""
_WHY_LIMIT = 300
"""Characters of a case's first failure shown on its line of the list."""

_ORDER = {"failed": 0, "errored": 1, "skipped": 2, "passed": 3}
_MARKS = {"passed": "✓", "failed": "✗", "errored": "!", "skipped": "\u2013"}


@functools.cache
def page_part(name: str) -> str:
    """The text of one of the page's parts (`report.html`, `style.css`, `report.js`)."""
    return resources.files("harness.reports").joinpath("page", name).read_text("utf-8")


def policy(*, script: str | None, style: str | None) -> str:
    """The Content-Security-Policy of a page whose only script and style are these texts
    (None: no script; for `style`, inline style allowed, for an embedded chart's)."""
    scripts = f"script-src {_source_hash(script)}" if script is not None else "script-src 'none'"
    styles = "style-src 'unsafe-inline'" if style is None else f"style-src {_source_hash(style)}"
    return f"default-src 'none'; {scripts}; {styles}; base-uri 'none'; form-action 'none'"


def _source_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def embedded_json(value: Any) -> str:
    """`value` as JSON that can stand inside a `<script>` element: no `<`, `>` or `&`, and
    every non-ASCII character (U+2028 and U+2029 included) as a `\\u` escape."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(
    document: ReportDocument, *, run_id: str = "", comparison: Comparison | None = None
) -> str:
    """The page of `document`, the run `run_id` (its JSON report's SHA-256) names.

    With `comparison` (the run against a baseline), the header shows its flips and each
    flipped case is marked.
    """
    ordered = sorted(document.cases, key=lambda case: _ORDER[status(case)])
    flips = {} if comparison is None else {flip.name: flip.flip for flip in comparison.cases}
    cases, notes = _cases(ordered, flips)
    style, script = page_part("style.css"), page_part("report.js")
    data = {"cases": cases, "left_out": _LEFT_OUT}
    title = f"harness report: {document.suite}"
    return Template(page_part("report.html")).substitute(
        csp=escape(policy(script=script, style=style)),
        run_id=escape(run_id),
        title=escape(title),
        style=style,
        header=_header(document, title, comparison),
        filters=_filters(document.cases),
        notes="".join(f'<p class="note">{escape(note)}</p>\n' for note in notes),
        data=embedded_json(data),
        script=script,
    )


def write_html(path: str, report_json: bytes, *, comparison: Comparison | None = None) -> None:
    """Write to `path` the page of the JSON report `report_json` (its bytes as written).

    Raises:
        ArtifactError: `report_json` is not a JSON report, or the page cannot be written.
    """
    document = decode_document(report_json, path, ArtifactError)
    run_id = hashlib.sha256(report_json).hexdigest()
    page = render_html(document, run_id=run_id, comparison=comparison)
    write_atomic(path, page.encode())


_LEFT_OUT = (
    "This case's details were left out of the page to keep it small: "
    "the JSON report holds them all."
)


def _cases(
    ordered: list[CaseDocument], flips: Mapping[str, str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Each listed case's line and, for the first ones, its details; and what was left out."""
    cases, budget, full = [], DETAIL_BUDGET, 0
    for case in ordered[:LISTED_CASES]:
        item = _line(case, flips.get(case.name))
        if full < FULL_CASES and budget > 0:
            item["x"] = case_story(case, TEXT_LIMIT)
            budget -= len(embedded_json(item["x"]))
            full += 1
        cases.append(item)
    notes = []
    if len(ordered) > LISTED_CASES:
        notes.append(
            f"{len(ordered) - LISTED_CASES} more cases are not listed (the page lists "
            f"{LISTED_CASES}, failing and errored first): the JSON report holds them."
        )
    if full < len(cases):
        notes.append(
            f"Details are shown for the first {full} of the {len(cases)} cases listed "
            f"(failing and errored first); each text is cut to {TEXT_LIMIT} characters. "
            "The JSON report holds everything."
        )
    return cases, notes


def _line(case: CaseDocument, flip: str | None) -> dict[str, Any]:
    """What the list shows of a case before it is opened."""
    item: dict[str, Any] = {"n": case.name, "st": status(case), "d": case.duration_s}
    item["src"] = relative_path(case.source)
    why = _why(case)
    if why:
        item["f"] = why
    if flip is not None:
        item["b"] = flip
    return item


def _why(case: CaseDocument) -> str:
    """The first reason the case did not pass, on one line, or empty."""
    if case.error is not None:
        return one_line(f"error: {case.error}", _WHY_LIMIT)
    if case.skipped is not None:
        return one_line(f"skipped: {case.skipped}", _WHY_LIMIT)
    failed = [grade for grade in case.grades if not grade.passed]
    if failed:
        more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
        return one_line(f"{failed[0].check}: {failed[0].detail}", _WHY_LIMIT) + more
    return "" if case.passed else "the case declares no check"


def _header(document: ReportDocument, title: str, comparison: Comparison | None) -> str:
    word = "passed" if document.all_passed else "failed"
    verdict = f"{_MARKS[word]} {word.upper()}"
    if document.interrupted is not None:
        verdict += f": interrupted by {document.interrupted}"
    elif document.stopped_early:
        verdict += ": stopped at the first failure"
    counts = {
        "passed": document.passed,
        "failed": document.failed - document.errored,
        "errored": document.errored,
        "skipped": document.skipped,
    }
    items = "".join(
        f'<li class="{name}"><span class="mark" aria-hidden="true">{_MARKS[name]}</span> '
        f'<span class="word">{count} {name}</span></li>'
        for name, count in counts.items()
    )
    total = f"{document.total} cases run"
    if document.suite_total is not None and document.suite_total != document.total:
        total += f" of {document.suite_total} in the suite"
    facts = {
        "suite": f"{document.suite} ({document.suite_dir})",
        "mode": document.mode,
        "started": document.started_at,
        "duration": f"{document.duration_s:.2f} s",
        "commit": document.git_commit or "unknown",
        "shard": f"{document.shard.index}/{document.shard.total}" if document.shard else "",
        "selection": document.selection or "",
        "checks": document.score,
        "harness": document.harness_version,
    }
    rows = "".join(
        f"<dt>{name}</dt><dd>{escape(value)}</dd>" for name, value in facts.items() if value
    )
    parts = [
        f"<h1>{escape(title)}</h1>",
        f'<p><span class="verdict {word}">{escape(verdict)}</span></p>',
        f'<ul class="counts">{items}<li>{escape(total)}</li></ul>',
        f'<dl class="facts">{rows}</dl>',
    ]
    if comparison is not None:
        lines = "".join(f"<li>{escape(line)}</li>" for line in comparison.summary())
        parts.append(f'<section id="baseline"><h2>Against the baseline</h2><ul>{lines}</ul>')
        parts.append("</section>")
    return "\n".join(parts)


def _filters(cases: tuple[CaseDocument, ...]) -> str:
    counts = dict.fromkeys(_ORDER, 0)
    for case in cases:
        counts[status(case)] += 1
    return "\n".join(
        f'<label class="{name}"><input type="checkbox" name="status" value="{name}" checked> '
        f'<span class="mark" aria-hidden="true">{_MARKS[name]}</span> {name} ({count})</label>'
        for name, count in counts.items()
    )


_RUN_META = re.compile(rb'<meta name="harness-run" content="([0-9a-f]{64})">')
_HEAD_BYTES = 4096
"""Bytes of a page read to find which run it shows (its `harness-run` meta is in its head)."""


def pages_beside(page: str) -> dict[str, str]:
    """The HTML reports in the folder of `page`, by the run each shows (its JSON report's
    SHA-256, as the history keys runs): run -> file name."""
    folder = os.path.dirname(os.path.abspath(page))
    found: dict[str, str] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return found
    for name in names:
        if not name.endswith(".html") or name == os.path.basename(page):
            continue
        match = _RUN_META.search(_head(os.path.join(folder, name)))
        if match is not None:
            found.setdefault(match[1].decode("ascii"), name)
    return found


def _head(path: str) -> bytes:
    """The first bytes of `path` if it is a regular file (a FIFO is never waited on)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return b""
        return os.read(descriptor, _HEAD_BYTES)
    except OSError:
        return b""
    finally:
        os.close(descriptor)
