"""The one set of credential shapes: what the privacy lint flags is what reports redact."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import credentials
from harness.authoring.privacy import PrivacyLint
from harness.authoring.randomness import random_tokens
from harness.credentials import MARK, MIN_VALUE, Found, find, might_hold
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
    "DB_PASSWORD=hunter22x",
    "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "NPM_TOKEN: npm_abcdefghijklmnop",
    "x-api-key: abcdefgh1234",
    "MY_APP_SECRET_VALUE='q9w8e7r6t5'",
    "Authorization: Token abc123",
    "Proxy-Authorization: Negotiate YIIabcdef",
    "authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830, Signature=5d672d79c15b",
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
    "git clone https://harness_user:s3cretpass@example.com/repo.git",
    "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "Cookie: sessionid=abc123def456; csrftoken=xyz",
    "Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2021 07:28:00 GMT; Secure",
    "DB_PASSWORD=hunter2",
    "password: hunter2",
    "NPM_TOKEN=abc",
    "--token=abc",
    "password=<3kitty",
    '{"password": "correct horse battery staple"}',
    "Cookie: a=1; b=2",
    'Authorization: Digest username="harness_user", realm="example.com", response="6629fae4"',
    "//registry.example.com/:_authToken=abcd",
    "dbPassword=hunter2",  # camelCase names, as JavaScript and JSON configs write them
    '{"githubToken": "abc"}',
    "nextAccessToken=abc",  # a cursor word before a secret that is not a bare `token`
    "const openaiApiKey = 'k-123'",
    "myAccessToken: zz",
    "secretKey: 'abc123'",  # `secret` anywhere in a camelCase name, as in a snake_case one
    "stripeSecretKey=sk_x",
    "DBPassword=x1",  # a run of capitals before the word
    "openAIApiKey=k1",
    'password="true"',  # quoted, a literal may be a password
    # The shapes that used to pass both.
    "PGPASSWORD=hunter22 psql",
    "PASS_WORD=hunter22",
    "pass=hunter22x",
    "glpat-abcdefghij0123456789",
    "sk_live_abcdefghij0123456789",
    "rk_live_abcdefghij0123456789",
    "SG.abcdefghij012345.abcdefghij0123456789",
    "hf_abcdefghij0123456789ABCD",
    "npm_abcdefghij0123456789ABCD",
    "https://hooks.slack.com/services/T0000/B0000/abcdefghij",
    "AccountName=harness;AccountKey=abcdefghij0123==;EndpointSuffix=example.com",
    "https://harness.example.com/c?sv=2022-11-02&sig=abcdefghij%3D",
    "user=harness_user&password%3Dhunter22",
    "PASSWORD:\thunter22",
    "secret:\nhunter22",
    "<password>hunter22</password>",
    '"detail": "PASSWORD:\\thunter22"',  # as a quoted text shows it
    '<db:Password type="x">correct horse</db:Password>',
    "REDISPASS=hunter22",
    "X-Amz-Signature=abcdef0123456789",
    "whsec_abcdefghij0123456789",
    "pypi-AgEIcHlwaS5vcmcabcdefghij0123456789",
    "https://discord.com/api/webhooks/123456/abcdefghij",
    "ya29.abcdefghij0123456789ABC",
    "hvs.abcdefghij0123456789ABCD",
    "xapp-1-abcdefghij0123",
    "mysql --password hunter22 app",
    "machine api.example.com login harness_user password hunter22",
    '<add key="ApiKey" value="abcd1234efgh" />',
    '<input name="password" value="hunter22">',
    "dbpassword=hunter22",
    "csrftoken=abcdefgh12",
    "https://maps.example.com/api?key=abcdefgh1234",
    "abc8Q~abcdefghijklmnopqrstuvwxyz0123456",
    "password => 'hunter22'",  # Ruby, Perl and PHP
    'password := "hunter22"',  # Go
    "ENV API_KEY abcd1234efgh",  # a Dockerfile
    "dckr_pat_abcdefghij0123456789",
    "secret_abcdefghij0123456789abcdefghij0123",
    "123456789:AAabcdefghij0123456789abcdefghij012",
    "ntn_abcdefghij0123456789AB",
]
# Text that mentions the trigger words, or comes close to a shape, without holding a secret.
PROSE = [
    "the keyboard and passport are fine",
    "an agent broken that way would pass: alter_result(0) survives",  # prose, not `pass=`
    "all 12 cases pass: regression_suite_green",
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
    "the author: Jonathan Smith",
    "secretary: Jonathan Smith",
    "my cookie: chocolate chip",
    "max_tokens: 1000000000",
    "http://example.com:8080/path?q=1",
    "DB_PASSWORD_FILE=/run/secrets/db",
    "AIzaShort",
    f"Authorization: Bearer abcd{MARK}",
    f"https://harness_user:s3cr{MARK}@example.com",
    "auth: none",
    "pwd: /tmp",
    "NPM_TOKEN=${NPM_TOKEN}",
    "NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
    "DB_PASSWORD=$DB_PASSWORD",
    "password: <redacted>",
    "password: <your password here>",
    "api_key: ***",
    "client_secret=[hidden]",
    "password=",
    'password: ""',
    "SECRET_KEY=%SECRET_KEY%",
    "Authorization: Bearer <token>",
    "the password policy: at least 12 characters",
    'send the "Authorization", "Accept" and "Cookie", "Host" headers',
    "OAuth: enabled",  # no camelCase word starts at `Auth`
    "passwordHash: sha256",  # the secret word must end the name
    "the tokenizer=fast",
    "isAuth=true",  # a bare literal is a setting
    '"nextToken": null',
    "withCredentials: true",
    "password=None",
    '"nextPageToken": "CAEQAA"',  # pagination cursors are no credentials
    "NextToken=abc123",
    '{"ContinuationToken": "1x"}',
    "page_token=2",
    "OLDPWD=/home/harness_user",
    "bypass=true",
    "the tests pass: all",
    "signature: ok",
    "<token>short</token>",
    "<note>hunter22</note>",
    "sig=abc",  # only in a query string
    "glass-abcdefghij0123456789",
    "--token short",
    "--verbose yes",
    "log in now, password please",
    "bypass=1",
    '<add key="Timeout" value="30"/>',
    "the flag --password-file /run/x",
    "ENV PATH /usr/bin",
    "x => y",
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
        assert found.secret not in redacted or found.kind.endswith(("private key", "key block"))


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_neither_flagged_nor_redacted(text: str) -> None:
    """Near misses and already-redacted text are left alone by both."""
    assert not flagged_by_lint(text)
    assert find(text) == []
    assert redact(text) == text


_FRAGMENTS = [
    "api_key", "token", "password", "auth", "=", ": ", '"', "'", " ", "\n", ",", "Bearer ",
    "DB_", "Authorization", "Token ", "Cookie", "sid=", ";", "https://", "user:", "@",
    "example.com", "AIza", "0123456789abcdefghijklmnopqrstuvwxy", "SECRET", "PGP ",
    "DB_PASSWORD=", "hunter2", "Digest ", 'realm="', '\\"', "${", "}", "***", "<redacted>",
    "[(", "', '", '", "',
    "-----BEGIN PGP PRIVATE KEY BLOCK-----",
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


@pytest.mark.parametrize("word", ["token", "auth", "pwd", "credential", "credentials"])
def test_a_bare_everyday_word_needs_min_value_characters(word: str) -> None:
    """After `token` alone a value shorter than MIN_VALUE is prose; after `NPM_TOKEN` it is not."""
    assert find(f"{word}=" + "a" * MIN_VALUE) == [
        Found(kind=f"secret after {word}", secret="a" * MIN_VALUE)
    ]
    assert find(f"{word}=" + "a" * (MIN_VALUE - 1)) == []
    for name in (f"NPM_{word.upper()}", f"x-{word}", f"--{word}", f"db.{word}"):
        assert find(f"{name}=a") == [Found(kind=f"secret after {name[-len(word) :]}", secret="a")]


def test_a_bearer_value_needs_min_value_characters() -> None:
    """`Bearer`/`Basic` outside a header are English words too."""
    assert find("Bearer " + "b" * MIN_VALUE) == [
        Found(kind="Bearer credential", secret="b" * MIN_VALUE)
    ]
    assert find("Bearer " + "b" * (MIN_VALUE - 1)) == []


@pytest.mark.parametrize(
    "text",
    ["DB_PASSWORD=hunter2", "password: hunter2", "AWS_SECRET_ACCESS_KEY=x", "NPM_TOKEN: ab",
     "OPENAI_API_KEY='abc'", "client_secret=s3", 'MY_APP_SECRET_VALUE = "q9"', "passwd=1"],
)  # fmt: skip
def test_a_name_that_says_secret_makes_any_value_one(text: str) -> None:
    """The issue's `DB_PASSWORD=hunter2`: the name says what the value is, whatever its length."""
    redacted = redact(text)
    assert redacted.endswith(MARK) or redacted.endswith(MARK + text[-1])
    assert not any(part in redacted for part in ("hunter2", "=x", ": ab", "abc", "s3", "q9", "=1"))
    assert flagged_by_lint(text)


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ('{"password": "correct horse battery staple", "user": "harness_user"}',
         f'{{"password": "corr{MARK}", "user": "harness_user"}}'),
        ("{'password': 'it is me', 'n': 1}", f"{{'password': 'it i{MARK}', 'n': 1}}"),
        ('"{\\"password\\": \\"a b \\\\\\"c\\\\\\" d\\"}"',
         f'"{{\\"password\\": \\"a b {MARK}\\"}}"'),
    ],
)  # fmt: skip
def test_a_quoted_value_is_masked_to_its_closing_quote(text: str, redacted: str) -> None:
    """A passphrase's spaces, and quotes escaped deeper than its own, are all part of it."""
    assert redact(text) == redacted


DIGEST = (
    'Digest username="harness_user", realm="example.com", nonce="dcd98b7102dd2f0e8b11d0f6", '
    'uri="/dir/index.html", qop=auth, nc=00000001, cnonce="0a4f113b", '
    'response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41"'
)
DIGEST_VALUES = ("harness_user", "dcd98b71", "index.html", "0a4f113b", "6629fae4", "5ccc069c")


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (f"Authorization: {DIGEST}", f"Authorization: Digest user{MARK}"),
        (f"Proxy-Authorization: {DIGEST}\nHost: example.com",
         f"Proxy-Authorization: Digest user{MARK}\nHost: example.com"),
        (json.dumps({"Authorization": DIGEST, "Host": "example.com"}),
         f'{{"Authorization": "Digest user{MARK}", "Host": "example.com"}}'),
        (json.dumps([f"Authorization: {DIGEST}", "Host: example.com"]),
         f'["Authorization: Digest user{MARK}", "Host: example.com"]'),
        (json.dumps(json.dumps({"authorization": DIGEST})),
         f'"{{\\"authorization\\": \\"Digest user{MARK}\\"}}"'),
        (f"curl -H 'Authorization: {DIGEST}' https://example.com",
         f"curl -H 'Authorization: Digest user{MARK}' https://example.com"),
        ("Authorization: Custom a = \"x y\", b=z", f"Authorization: Custom a = {MARK}"),
        (f"headers=[('Authorization', '{DIGEST}'), ('Host', 'example.com')]",
         f"headers=[('Authorization', 'Digest user{MARK}'), ('Host', 'example.com')]"),
        (json.dumps([["proxy-authorization", DIGEST]]),
         f'[["proxy-authorization", "Digest user{MARK}"]]'),
    ],
)  # fmt: skip
def test_a_digest_header_is_masked_whole(text: str, redacted: str) -> None:
    """Every parameter of a Digest credential, quoted or not, in every quoting of the header."""
    assert redact(text) == redacted
    assert not any(value in redact(text) for value in DIGEST_VALUES)
    assert redact(redacted) == redacted
    assert find(redacted) == []
    assert flagged_by_lint(text)


def test_a_cookie_shows_no_value() -> None:
    """Keeping 4 characters of `a=1; b=2` would show a value: a cookie keeps only a name part."""
    assert redact("Cookie: a=1; b=2; c=3") == f"Cookie: {MARK}"
    assert redact("Cookie: sessionid=abc123def456") == f"Cookie: sess{MARK}"
    assert redact('Cookie: theme="dark mode"; sid=abc') == f"Cookie: them{MARK}"
    assert redact("[('Cookie', 'a=1; b=2')]") == f"[('Cookie', '{MARK}')]"


def test_one_secret_seen_by_two_shapes_is_found_once() -> None:
    """`api_key=sk-…` is one OpenAI key, not also a keyed value."""
    key = "sk-proj-abcdefghijklmnopqrstuvwx123"
    assert find(f"api_key={key}") == [Found(kind="OpenAI-style API key", secret=key)]
    assert find("Authorization: Bearer abcdefghijklmnop") == [
        Found(kind="secret after Authorization", secret="abcdefghijklmnop")
    ]


def test_redacting_a_cut_pem_block_again_keeps_the_text_after_it() -> None:
    """The BEGIN line left of a redacted block is no unterminated block to mask to the end."""
    once = redact("a -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- b")
    assert once == f"a -----BEGIN RSA PRIVATE KEY-----{MARK} b"
    assert redact(once) == once


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


def test_a_short_secret_is_shown_not_at_all() -> None:
    """Under twice `KEEP` characters, keeping 4 would show most of it: none is kept."""
    assert redact("http://harness_user:pw@example.com") == f"http://harness_user:{MARK}@example.com"
    assert redact("Cookie: sid=abc") == f"Cookie: {MARK}"


@pytest.mark.parametrize(
    ("key", "secret"),
    [("password", True), ("DB_PASSWORD", True), ("x-api-key", True),
     ("AWS_SECRET_ACCESS_KEY", True), ("Authorization", True), ("dbPassword", True),
     ("githubToken", True), ("openaiApiKey", True), ("max_tokens", False),
     ("passwordHash", False), ("OAuth", False), ("nextPageToken", False), ("NextToken", False),
     ("continuation_token", False), ("prev-token", False),
     ("author", False), ("secretary", False), ("message", False)],
)  # fmt: skip
def test_a_json_key_names_a_secret(key: str, secret: bool) -> None:
    """In parsed JSON the key is not beside its value in one text: it is judged on its own."""
    assert credentials.secret_key(key) is secret
    assert credentials.secret_value(key, "abcdefgh1234") is secret
    assert credentials.secret_value(key, "short") is secret
    for stand_in in (f"abcd{MARK}", "", " ", "***", "<redacted>", "${TOKEN}", "$TOKEN"):
        assert not credentials.secret_value(key, stand_in)


def test_a_json_value_under_a_bare_everyday_word_needs_min_value_characters() -> None:
    """`{"token": "short"}` is prose as `token: short` is; `{"npm_token": "a"}` is a secret."""
    assert not credentials.secret_value("token", "short")
    assert credentials.secret_value("token", "abcdefgh")
    assert credentials.secret_value("npm_token", "a")
    assert credentials.secret_value("authToken", "a")


def test_the_lint_flags_a_secret_under_a_secret_key_in_the_json_itself() -> None:
    """`{"api_key": "…"}` in a fixture's arguments: flagged once, masked."""
    findings = PrivacyLint().scan({"arguments": {"api_key": "abcdefgh1234", "note": "hello"}})
    assert [(f.rule, f.location, f.message) for f in findings] == [
        (
            "privacy.credential",
            "$.arguments.api_key",
            "looks like a secret under 'api_key': abcd…(12 chars)",
        )
    ]
    assert PrivacyLint(allow=["abcdefgh1234"]).scan({"api_key": "abcdefgh1234"}) == []
    assert len(PrivacyLint().scan({"api_key": "Bearer abcdefghijklmnop"})) == 1  # not twice


def test_patterns_stay_linear_on_long_runs_of_word_parts() -> None:
    """Key names are found by lookbehind, so a long `a-a-a-…` run is one quick pass."""
    text = "a-" * 200_000 + "password=abcdefgh1234"
    assert find(text) == [Found(kind="secret after password", secret="abcdefgh1234")]


@pytest.mark.parametrize("unit", ["secret_", "xSecret_", "aSecretB", "dbSecret.", "ABSecret"])
def test_patterns_stay_linear_on_long_runs_of_secret_words(unit: str) -> None:
    """`secret` takes a bounded number of words after it, each camelCase word ending at the
    next capital: a long run of them is not scanned again from each `secret`."""
    text = unit * (200_000 // len(unit))
    assert find(text + " api_key=abc") == [Found(kind="secret after api_key", secret="abc")]
    assert redact(text) == text


def test_a_text_of_many_credentials_is_one_pass() -> None:
    """Each one is checked against those found before by bisection, not one by one."""
    text = "NPM_TOKEN=abc " * 20_000 + 'Authorization: Digest response="6629fae4"'
    found = find(text)
    assert len(found) == 20_001
    assert found[0] == Found(kind="secret after Authorization", secret='response="6629fae4"')
    assert set(found[1:]) == {Found(kind="secret after TOKEN", secret="abc")}


@pytest.mark.parametrize(
    ("token", "random"),
    [
        ("regression-gh8929-trimmed-final-text-not-duplicated", False),  # a case name
        ("gh8952-no-duplicated-confirmation-of-the-order", False),
        ("evals/regression/gh8722_generated_filename.json", False),  # a path
        ("Xk9_aZ-q8Lm2-Np4Rs6Tu8Vw0Yz1Ab3Cd5Ef7Gh9Q", True),  # base64url, with separators
        ("ghp_x7Kq9Lm2Np4Rs6Tu8Vw0Yz1Ab3Cd5Ef7Gh9", True),
    ],
)
def test_words_joined_by_dashes_are_not_random(token: str, random: bool) -> None:
    """Case names and paths made of words read as words, however long; generated tokens
    with a separator or two still look random."""
    assert bool(random_tokens(token)) is random


def test_aws_key_ids_written_back_to_back_are_both_masked() -> None:
    """The second id has no word boundary before it; it is part of the one match."""
    first, second = "AKIAIOSFODNN7EXAMPLE", "ASIAI44QH8DHBEXAMPLE"
    (found,) = find(f"ids {first}{second} end")
    assert found.secret == first + second


@pytest.mark.parametrize(
    "text",
    [
        "machine a login b " * 40_000,
        "<a " * 100_000 + "<password>",
        'key="a" ' * 60_000,
        "--a " * 100_000,
        "a" * 300_000 + "password",
        "A" * 300_000 + "TOKEN",
        "&sig" * 100_000,
    ],
    ids=["netrc", "elements", "pairs", "flags", "lower-case run", "capitals", "queries"],
)
def test_the_newer_patterns_stay_linear_on_long_runs(text: str) -> None:
    """Each pattern looks at a long run of its own opening words once, not once per start."""
    assert find(text) == []
    assert redact(text) == text


@pytest.mark.parametrize("text", ["_token=abc", ".token=abc", "-token=abc"])
def test_a_short_secret_after_a_key_one_separator_into_the_text_is_redacted(text: str) -> None:
    """The separator before the key is the text's first character: the value still counts."""
    assert find(text) == [Found(kind="secret after token", secret="abc")]
    assert "abc" not in redact(text)


def test_a_separator_at_the_end_of_a_text_does_not_make_its_first_word_a_key_part() -> None:
    """`token` opening the text is a bare word, whatever the text ends with: `abc` is prose."""
    assert find("token=abc -") == []
    assert redact("token=abc -") == "token=abc -"


def test_a_pgp_key_block_is_named_as_one() -> None:
    """The lint says which kind of key block it found."""
    block = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----"
    assert find(block) == [
        Found(kind="PGP private key block", secret="-----BEGIN PGP PRIVATE KEY BLOCK-----")
    ]


def test_a_digest_header_in_a_pair_list_is_found() -> None:
    """`[('Authorization', 'Digest …')]`: the comma and quote after the name are a separator."""
    found = find("headers=[('Authorization', 'Digest username=\"harness_user\"')]")
    assert [item.kind for item in found] == ["secret after Authorization"]


@pytest.mark.parametrize(
    ("plain", "trigger"),
    [("the ", "API_KEY"), ("a lone \ud800 surrogate, then a ", "token"), ("ünïcödé ", "Bearer")],
    ids=["upper-case", "lone-surrogate", "non-ascii"],
)
def test_the_screen_sees_a_trigger_beside_any_character(plain: str, trigger: str) -> None:
    """`might_hold` finds a trigger word in any case, after any character, even far in."""
    assert not might_hold(plain * 500)
    assert might_hold(plain * 500 + trigger)
