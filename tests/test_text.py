"""Showing observed text safely: truncation, quoting, and escaping for each place it is shown."""

from __future__ import annotations

import io
from contextlib import redirect_stderr
from pathlib import Path

import msgspec
import pytest

from harness._cli.main import main
from harness.text import (
    QUOTE_LIMIT,
    complain,
    cut_middle,
    markdown,
    one_line,
    plain,
    printable,
    quote,
    quote_list,
    truncate,
    without_ansi,
    without_attachments,
    without_surrogates,
    workflow_data,
    workflow_property,
    xml_safe,
)


def test_truncation_keeps_the_limit_and_says_how_much_was_cut() -> None:
    """One marker: the first `limit` characters, then how many more there were."""
    assert truncate("x" * 10, 4) == "xxxx…[truncated 6 chars]"
    assert truncate("x" * 4, 4) == "xxxx"
    assert truncate("", 0) == ""
    assert truncate("abc", None) == "abc"


def test_quotes_are_json_and_long_text_is_cut_visibly() -> None:
    """Quoted text is JSON (unicode kept) and cut with the marker past the limit."""
    assert quote('say "hi"\n日本') == '"say \\"hi\\"\\n日本"'
    assert quote("x" * 10, limit=4) == '"xxxx…[truncated 6 chars]"'
    assert quote("y" * (QUOTE_LIMIT + 1)) == f'"{"y" * QUOTE_LIMIT}…[truncated 1 chars]"'
    assert quote_list(["a", "b"]) == '["a", "b"]'


def test_control_characters_cannot_repaint_the_terminal() -> None:
    """Escape sequences, newlines and bidi overrides are shown escaped."""
    assert printable("a\x1b[2Jb\nc\u202ed\x00") == "a\\x1b[2Jb\\nc\\u202ed\\x00"
    assert printable("lone\ud800") == "lone\\ud800"
    assert printable("naïve ✓") == "naïve ✓"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a|b", "a\\|b"),
        ("two\n  lines\tand tabs", "two lines and tabs"),
        ("`code`", "'code'"),
        ("plain ✓", "plain ✓"),
        ("<b>bold</b> & co", "&lt;b&gt;bold&lt;/b&gt; &amp; co"),
        ("\x1b[31mred\x1b[0m\x00", "red\\x00"),
        ("lone\ud800", "lone\\ud800"),
    ],
)
def test_markdown_text_cannot_break_a_table_row(raw: str, shown: str) -> None:
    """One line, pipes escaped, backticks and HTML made harmless, controls escaped."""
    assert markdown(raw) == shown


def test_markdown_cuts_after_collapsing_whitespace_and_before_escaping() -> None:
    """The limit counts the text shown, so an escape is never split by the cut."""
    assert markdown("a  b|cdef", 4) == "a b\\|…[truncated 4 chars]"


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("a\x00b", "a\\x00b"),
        ("\x1b[1;31mred\x1b[0m", "red"),
        ("\x1b]0;title\x07text", "text"),
        ("lone\udc80", "lone\\udc80"),
        ("\ufffe\uffff", "\\ufffe\\uffff"),
        ("tab\tnewline\n", "tab\tnewline\n"),
        ("naïve ✓", "naïve ✓"),
    ],
)
def test_xml_safe_removes_ansi_whole_and_escapes_illegal_characters(raw: str, cleaned: str) -> None:
    """Strings are made XML-safe before junit-xml sees them, with no residue."""
    assert xml_safe(raw) == cleaned


def test_xml_safe_cuts_after_cleaning() -> None:
    """The limit applies to the cleaned text, with the one marker."""
    assert xml_safe("\x1b[31m" + "x" * 10, 4) == "xxxx…[truncated 6 chars]"


def test_lone_surrogates_become_escapes_in_nested_values() -> None:
    """Every string (in lists, tuples and dict values) encodes as UTF-8 afterwards."""
    value = {"a": ["ok", ("lone\ud800",)], "b": 3, "c": None}
    cleaned = without_surrogates(value)
    assert cleaned == {"a": ["ok", ["lone\\ud800"]], "b": 3, "c": None}
    assert msgspec.json.decode(msgspec.json.encode(cleaned)) == cleaned


def test_complain_prefixes_every_line() -> None:
    """Each line of a message goes to stderr as `harness: <line>`."""
    err = io.StringIO()
    with redirect_stderr(err):
        complain("first\nsecond")
        complain("")
    assert err.getvalue() == "harness: first\nharness: second\nharness: \n"


def test_cut_middle_keeps_both_ends() -> None:
    """The start and the end survive; the marker says how much of the middle went."""
    assert cut_middle("abcdefghij", 4) == "ab…[truncated 6 chars]…ij"
    assert cut_middle("abcdefghij", 5) == "abc…[truncated 5 chars]…ij"
    assert cut_middle("abc", 3) == "abc"
    assert cut_middle("abc", None) == "abc"


def test_one_line_keeps_the_first_line_and_counts_the_rest() -> None:
    assert one_line("first\r\nsecond\nthird") == "first …[+2 more lines]"
    assert one_line("first\nsecond") == "first …[+1 more line]"
    assert one_line("x" * 10, 4) == "xxxx…[truncated 6 chars]"
    assert one_line("") == ""


def test_ansi_is_removed_whole_and_plain_keeps_lines() -> None:
    """No `[31m` residue; newlines and tabs stay, other controls and surrogates escaped."""
    assert without_ansi("\x1b[1;31mred\x1b[0m \x1b]0;t\x07x") == "red x"
    assert without_ansi("no escape") == "no escape"
    assert plain("a\x1b[2Jb\nc\td\x00\u202e\ud800") == "ab\nc\td\\x00\\u202e\\ud800"


def test_attachment_markers_are_broken_up() -> None:
    """Jenkins and GitLab read `[[ATTACHMENT|path]]`; case does not help an attacker."""
    assert without_attachments("[[ATTACHMENT|/etc/passwd]]") == "[ [ATTACHMENT|/etc/passwd]]"
    assert without_attachments("[[attachment|x]] [[PROPERTY|a=b]]") == (
        "[ [attachment|x]] [ [PROPERTY|a=b]]"
    )
    assert without_attachments("[[other|x]] [[") == "[[other|x]] [["


@pytest.mark.parametrize(
    ("raw", "data"),
    [
        ("::stop-commands::tok", ": :stop-commands: :tok"),
        (":::", ": : :"),
        ("100%\r\nnext", "100%25\\r%0Anext"),
        ("\x1b[31mred\x07", "red\\x07"),
    ],
)
def test_workflow_data_cannot_start_a_command(raw: str, data: str) -> None:
    """No `::` survives, and the command stays on one line."""
    assert workflow_data(raw) == data


def test_workflow_property_also_escapes_colons_and_commas() -> None:
    assert workflow_property("a,b:c") == "a%2Cb%3Ac"


def test_complain_escapes_control_characters_in_every_line() -> None:
    """ESC, NUL and the like from a fixture or an agent cannot repaint the terminal."""
    stream = io.StringIO()
    with redirect_stderr(stream):
        complain("bad \x1b[31mred\x1b[0m name\x00\nand \x07bell")
    assert stream.getvalue() == (
        "harness: bad \\x1b[31mred\\x1b[0m name\\x00\nharness: and \\x07bell\n"
    )


def test_complain_redacts_every_line() -> None:
    """An error line quoting an upstream or an agent never shows the credential it held."""
    stream = io.StringIO()
    with redirect_stderr(stream):
        complain("upstream said: api_key=sk_live_abcdefghij0123 and\nsecret:\nhunter22x")
    shown = stream.getvalue()
    assert "abcdefghij0123" not in shown
    assert "hunter22x" not in shown
    assert shown.count("harness: ") == 3


def test_an_error_line_naming_a_fixture_path_is_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite folder whose name holds ESC and NUL-like controls: exit 2, one escaped line."""
    suite = tmp_path / "evil\x1b[2Jname\x07"
    suite.mkdir()
    assert main(["run", "--suite", str(suite)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "\x07" not in err
    assert "evil\\x1b[2Jname\\x07" in err
