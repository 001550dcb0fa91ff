"""The privacy lint: real-looking identities are flagged, placeholders are not."""

from __future__ import annotations

import json

import pytest

from harness._cli.main import main
from harness.authoring.privacy import PrivacyLint
from harness.credentials import KEEP
from tests.builders import echo_trace, text_step
from tests.conftest import WriteFixture
from tests.reports.test_redact import KINDS

ISSUE_SHAPES = KINDS["issue 31 shape"]


def rules(text: str, allow: tuple[str, ...] = ()) -> list[str]:
    return [finding.rule for finding in PrivacyLint(allow).check("$.x", text)]


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("mail jane.doe@gmail.com please", "privacy.email"),
        ("key sk-proj-abcdefghijklmnopqrstuvwx123", "privacy.credential"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "privacy.credential"),
        ("AKIAIOSFODNN7EXAMPLE", "privacy.credential"),
        ("xoxb-1234567890-abcdefghij", "privacy.credential"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
            "privacy.credential",
        ),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIE", "privacy.credential"),
        ("token Zx9QmV2pL7rT4wK8nB3yH6dF1sJ5gC0aE", "privacy.credential"),
        ("server at 10.1.2.3", "privacy.ip"),
        ("dns 8.8.8.8", "privacy.ip"),
        ("ipv6 2607:f8b0:4005:80b::200e", "privacy.ip"),
        ("see https://github.com/some/repo", "privacy.url"),
    ],
)
def test_real_looking_values_are_flagged(text: str, rule: str) -> None:
    """Each rule fires on its shape."""
    assert rule in rules(text)


@pytest.mark.parametrize(
    "text",
    [
        "harness_user@example.com",
        "ops@mail.example.org",
        "https://example.net/path?q=1",
        "http://api.test/v1 and http://localhost:8080/x",
        "192.0.2.10, 198.51.100.7, 203.0.113.255, 2001:db8::1, 127.0.0.1",
        "version 1.2.3-beta at 12:30:45 on 2026.12.02",
        "sha 3f786850e387550fdab836ed7e6dc881de23001b",
        "naïve café 日本語 ✓",
        "call_1",
    ],
)
def test_placeholders_and_ordinary_text_pass(text: str) -> None:
    """Documentation names, ranges and ordinary text raise nothing."""
    assert rules(text) == []


def test_allow_list_accepts_domains_networks_and_strings() -> None:
    """privacy_allow extends the allowed set."""
    allow = ("corp.example.io", "10.0.0.0/8", "sk-test-placeholder-0000000000")
    assert rules("a@corp.example.io https://docs.corp.example.io 10.9.8.7", allow) == []
    assert rules("sk-test-placeholder-0000000000", allow) == []
    assert rules("b@other.io", allow) == ["privacy.email"]


def test_findings_never_print_the_secret_in_full() -> None:
    """Messages mask what they found."""
    secret = "sk-proj-abcdefghijklmnopqrstuvwx123"
    (finding,) = PrivacyLint().check("$.x", secret)
    assert secret not in finding.message
    assert finding.message.endswith("sk-p…(35 chars)")


def test_scan_walks_keys_and_values_with_json_paths() -> None:
    """Nested values and keys are found with their path."""
    document = {"turns": [{"user_input": "write to bob@corp.io"}], "expects": {"jane@corp.io": 1}}
    found = [(f.rule, f.location) for f in PrivacyLint().scan(document)]
    assert found == [
        ("privacy.email", "$.turns[0].user_input"),
        ("privacy.email", "$.expects['jane@corp.io']"),
    ]


def test_a_secret_after_a_key_is_flagged_and_masked() -> None:
    """The lint knows every shape redaction scrubs, keyed values included."""
    (finding,) = PrivacyLint().check("$.x", "api_key=abcd1234efgh")
    assert finding.rule == "privacy.credential"
    assert finding.message == "looks like a secret after api_key: abcd…(12 chars)"


@pytest.mark.parametrize(
    "text",
    [
        "I forgot my password, can you reset it?",
        "What is the password policy? At least 12 characters.",
        "The secret to good caching is invalidation.",
        "The next token: a word piece of 4 characters.",
        "Set DB_PASSWORD in the environment, never in the file.",
        "auth: none",
        "NPM_TOKEN=${NPM_TOKEN}",
        "password: <your password here>",
        "api_key: ***",
    ],
)
def test_prose_and_placeholders_about_secrets_pass(text: str) -> None:
    """A fixture may talk about passwords and tokens, and stand one in, without holding one."""
    assert rules(text) == []


@pytest.mark.parametrize(
    "text", ["DB_PASSWORD=hunter2", "password: hunter2", "NPM_TOKEN: abc", "api-key=1"]
)
def test_a_short_secret_under_a_name_that_says_so_is_flagged(text: str) -> None:
    """The same rule redaction applies: the name says what the value is, whatever its length."""
    assert rules(text) == ["privacy.credential"]


def test_a_digest_header_is_flagged_once_and_masked() -> None:
    """Every parameter of the credential is the secret; the message shows 4 characters of it."""
    text = 'Authorization: Digest username="harness_user", response="6629fae49393a053"'
    (finding,) = PrivacyLint().check("$.x", text)
    assert finding.message == "looks like a secret after Authorization: user…(52 chars)"
    assert "6629" not in finding.message


@pytest.mark.parametrize("index", range(len(ISSUE_SHAPES)))
def test_harness_check_flags_each_shape_a_report_redacts(
    index: int, write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every shape the reports mask is a `privacy.credential` finding of `harness check`, which
    never prints it whole."""
    secret = "Q7w8E9r6T5y4U3i2"
    turns = [{"user_input": ISSUE_SHAPES[index](secret), "steps": [text_step("done")]}]
    trace = echo_trace(model_name="leaky", turns=turns, expects={"response_contains": ["done"]})
    suite = write_fixture("leaky.json", trace).parent
    assert main(["check", "--suite", str(suite), "--format", "json"]) == 1
    out = capsys.readouterr().out
    findings = json.loads(out)["findings"]
    assert {(f["rule"], f["location"]) for f in findings} >= {
        ("privacy.credential", "$.turns[0].user_input")
    }
    assert secret[KEEP:] not in out
