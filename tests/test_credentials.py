"""The one set of credential shapes: what the privacy lint flags is what reports redact."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import credentials
from harness.authoring.privacy import PrivacyLint
from harness.credentials import MARK, MIN_VALUE, Found, find, might_hold, random_tokens
from harness.reports.redact import redact

# One sample per shape. Placeholders only: none of these was ever a real credential.
CREDENTIALS = [
    "api_key=abcd1234efgh",
    "apikey: 'Zyxw9876vuts'",
    '{"password": "hunter22"}',
    "client-secret=s3cr3tvalue",
    "refresh_token=rt_0123456789",
    "Authorization: Bearer abcdefghijklmnop",
    "curl -H 'Basic dXNlcjpwYXNzd29yZA=='",
    "use sk-proj-abcdefghijklmnopqrstuvwx123 now",
    "sk-ant-0123456789abcdefABCDEF",
    "ghp_abcdefghijklmnopqrst",
    "github_pat_0123456789abcdefghij_KLMNOP",
    "AKIAIOSFODNN7EXAMPLE",
    "ASIAIOSFODNN7EXAMPLE",
    "xoxb-1234567890-abcdefghij",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQ (cut off)",
]
# Text that mentions the trigger words, or comes close to a shape, without holding a secret.
PROSE = [
    "the keyboard and passport are fine",
    "token: short",
    f"api_key=abcd{MARK}",
    "Bearer token",
    "ghp_abcdefghijklmnopqrs",
    "sk-short",
    "AKIA1234",
    "-----BEGIN PUBLIC KEY-----",
    f"-----BEGIN RSA PRIVATE KEY-----{MARK}",
    "sha 3f786850e387550fdab836ed7e6dc881de23001b",
    "harness_user@example.com asked for basic help",
]


def flagged_by_lint(text: str) -> bool:
    return any(f.rule == "privacy.credential" for f in PrivacyLint().check("$.x", text))


@pytest.mark.parametrize("text", CREDENTIALS)
def test_every_credential_is_both_flagged_and_redacted(text: str) -> None:
    """The lint and redaction agree on each shape, and redaction keeps only 4 characters."""
    assert flagged_by_lint(text)
    assert find(text)
    redacted = redact(text)
    assert redacted != text
    assert MARK in redacted
    for found in find(text):
        assert found.secret not in redacted or found.kind == "PEM private key"


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_neither_flagged_nor_redacted(text: str) -> None:
    """Near misses and already-redacted text are left alone by both."""
    assert not flagged_by_lint(text)
    assert find(text) == []
    assert redact(text) == text


_FRAGMENTS = [
    "api_key", "token", "password", "auth", "=", ": ", '"', "'", " ", "\n", ",", "Bearer ",
    "basic ", "abcd1234", "efgh5678", "ABCDEFGHIJKLMNOP", "sk-", "proj-", "ghp_", "github_pat_",
    "AKIA", "xoxb-", "eyJ", ".", "_", "-", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", MARK, "x", "Q7",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=12).map("".join))
def test_redaction_changes_exactly_the_texts_the_lint_flags(text: str) -> None:
    """For any mix of credential fragments, `find` and `redact` see the same credentials."""
    assert bool(find(text)) == (redact(text) != text)
    if find(text):
        assert flagged_by_lint(text)


def test_the_one_threshold_for_github_tokens() -> None:
    """20 characters after the prefix count for both (the lint used to want 30)."""
    for prefix in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"):
        assert find(prefix + "a" * 20) == [Found(kind="GitHub token", secret=prefix + "a" * 20)]
        assert find(prefix + "a" * 19) == []


def test_a_value_needs_min_value_characters() -> None:
    """A keyed or Bearer value shorter than MIN_VALUE is prose, not a secret."""
    assert find("token=" + "a" * MIN_VALUE) == [
        Found(kind="secret after token", secret="a" * MIN_VALUE)
    ]
    assert find("token=" + "a" * (MIN_VALUE - 1)) == []
    assert find("Bearer " + "b" * MIN_VALUE) == [
        Found(kind="Bearer credential", secret="b" * MIN_VALUE)
    ]


def test_one_secret_seen_by_two_shapes_is_found_once() -> None:
    """`api_key=sk-…` is one OpenAI key, not also a keyed value."""
    key = "sk-proj-abcdefghijklmnopqrstuvwx123"
    assert find(f"api_key={key}") == [Found(kind="OpenAI-style API key", secret=key)]
    assert find("Authorization: Bearer abcdefghijklmnop") == [
        Found(kind="secret after Authorization", secret="abcdefghijklmnop")
    ]


def test_a_pem_block_is_found_by_its_begin_line() -> None:
    """The lint masks the BEGIN line; redaction cuts the block whole."""
    block = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----"
    assert find(f"key:\n{block}\nafter") == [
        Found(kind="PEM private key", secret="-----BEGIN EC PRIVATE KEY-----")
    ]
    assert redact(f"{block}\nafter") == f"-----BEGIN EC PRIVATE KEY-----{MARK}\nafter"


def test_the_screen_passes_every_credential_and_stops_plain_text() -> None:
    """`might_hold` is a cheap first pass that never hides a credential."""
    assert all(might_hold(text) for text in CREDENTIALS)
    assert not might_hold("the weather in Paris is 21 degrees")


def test_random_tokens_are_long_and_high_entropy() -> None:
    """A random-looking 32+ character token is found; a hex hash or a word run is not."""
    token = "Zx9QmV2pL7rT4wK8nB3yH6dF1sJ5gC0aE"
    assert random_tokens(f"token {token}") == [token]
    assert random_tokens("3f786850e387550fdab836ed7e6dc881de23001b") == []
    assert random_tokens("a" * 40) == []
    assert random_tokens(token[:31]) == []


def test_random_tokens_are_flagged_by_the_lint_but_kept_in_reports() -> None:
    """Reports keep the ids and payloads a run produced; only fixtures are asked for more."""
    text = "id Zx9QmV2pL7rT4wK8nB3yH6dF1sJ5gC0aE"
    assert flagged_by_lint(text)
    assert redact(text) == text


def test_patterns_are_compiled_on_first_use_only() -> None:
    """Importing the lint and redaction, or screening plain text, compiles nothing."""
    code = (
        "import harness.reports.redact, harness.authoring.privacy\n"
        "from harness.credentials import patterns\n"
        "from harness.reports.redact import redact\n"
        "assert patterns.cache_info().currsize == 0\n"
        "redact('plain text, nothing to see')\n"
        "assert patterns.cache_info().currsize == 0\n"
        "redact('api_key=abcd1234efgh')\n"
        "assert patterns.cache_info().currsize == 1\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert credentials.patterns() is credentials.patterns()
