"""What a credential looks like: the one set of shapes, for the privacy lint and redaction.

`harness check` flags these shapes in fixtures (`privacy.credential`), and every report scrubs
them out of what a run recorded, so a string that one of them treats as a secret the other does
too. The shapes:

- the value after a secret-looking key: api_key, access_token, refresh_token, token,
  auth_token, client_secret, secret, password, pass_word, passphrase, passwd, pass, pwd, auth,
  private_key, access_key, account_key, signing_key, signature, credential(s), also as the last
  word of a longer name (`DB_PASSWORD`, `x-api-key`, `dbPassword`, `AccountKey`), of an
  upper-case one (`PGPASSWORD`), `secret` anywhere in one (`AWS_SECRET_ACCESS_KEY`), and
  `sig` in a query string (`&sig=`). Separators `=`, `:` or URL-encoded (`%3D`), with spaces,
  tabs or newlines around them, also as escapes in a quoted text (`secret:\\n…`); quotes
  allowed, escaped ones too, as in JSON quoted once or more; a quoted value runs to its
  closing quote. The name says what the value is, so any length counts, except after a bare
  everyday word (`token`, `auth`, `pwd`, `pass`, `credential(s)`, `signature`), where a value
  needs `MIN_VALUE` characters; a value that only stands in for a secret (`stands_in`: `***`,
  `<redacted>`, `${VAR}`, `$VAR`) never counts, nor does a bare literal (`true`, `null`). A
  pagination cursor (`nextPageToken`, `NextToken`, `page_token`) is no credential. In parsed
  JSON, the string value of such a key, by the same rule (`secret_value`), and the text of an
  XML element so named (`<password>…</password>`);
- what follows `Authorization:` (or `Proxy-Authorization:`) after its scheme, whatever the
  scheme or none: the whole credential, a Digest header's quoted parameters included, to the
  end of its line or of the string it is quoted in, also as a pair in a list of headers
  (`[('Authorization', 'Digest …')]`); `Bearer <token>` and `Basic <token>` anywhere (at
  least `MIN_VALUE` characters);
- a `Cookie:` or `Set-Cookie:` header's `name=value` pairs;
- the password in a URL (`https://user:password@host`);
- vendors' token shapes (`harness.tokens`): `sk-…`, `ghp_…`, `AKIA…`, `glpat-…`,
  `sk_live_…`, `SG.…`, `hf_…`, `npm_…`, webhook URLs, JWTs and more;
- a PEM private key block or a PGP private key block (to its END line, or to the end of the
  text).

At most `KEEP` characters of a credential are ever shown, and none of one shorter than twice
that (nor of a cookie header's value, `keep_cookie`). Only the lint also flags long
random-looking tokens (`harness.authoring.randomness`): a fixture ships forever and can always
use a placeholder, but a report must keep the ids, hashes and payloads a run produced readable.

The patterns are compiled on first use, not at import, so a run that never meets a trigger
word (`might_hold`) never pays for them.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import NamedTuple

from re2 import _re2

from harness.secret_names import CAMEL, JOINED, KEY_WORDS, PLAIN_WORDS
from harness.tokens import SHAPES, TRIGGERS, shapes_in

__all__ = [
    "KEEP",
    "MARK",
    "MIN_VALUE",
    "Found",
    "Patterns",
    "element_secret",
    "find",
    "is_cut",
    "keep",
    "keep_cookie",
    "keyed_secret",
    "might_hold",
    "patterns",
    "secret_key",
    "secret_value",
    "stands_in",
]

KEEP = 4
"""Characters of a credential that may be shown: the rest is masked."""
MARK = "*[REDACTED]"
"""What redaction puts after the kept characters; a value that holds it is not a secret."""
MIN_VALUE = 8
"""Characters a value needs to count after `Bearer`/`Basic` or a bare everyday key word
(`token`, `auth`, `pwd`, `credential(s)`); after any other secret-looking key, one will do."""

# Space around a separator, also as a quoted text shows it (`secret:\n…` in a JSON string).
_SPACE = r"(?:\s|\\+[nrt])*"
# A bare JSON, Python or JavaScript literal is a setting, not a secret (`isAuth=true`,
# `"nextToken": null`); quoted, it may be one.
_LITERALS = frozenset({"true", "false", "null", "True", "False", "None", "undefined", "nil"})

# A value that stands for a secret without being one: a mask (`***`, `xxxx`, `...`), a
# placeholder (`<redacted>`, `<your token>`, `[hidden]`) or a reference to where the secret
# lives (`${VAR}`, `${{ secrets.NPM_TOKEN }}`, `$NPM_TOKEN`, `%NPM_TOKEN%`, `{{ .Values.x }}`).
# A `$VAR` reference is upper case, as environment variables are: `$ecret` stays a secret; a
# `<placeholder>` holds letters and spaces only: `<3kitty` stays a secret.
_STAND_IN = r"""(?x)
    \*+ | x{3,} | X{3,} | \.{3,} | … | -{3,}
    | <[A-Za-z\ _.-]*>? | \[[^\[\]]*\]
    | \$\{.* | \$[A-Z_][A-Z0-9_]* | %[A-Za-z_][A-Za-z0-9_]*% | \{\{.*
"""


# Between a header's name and its value: `:` or `=`, or, for a name that opens a pair
# (`[('Authorization', 'Digest …')]`, `[["cookie", "…"]]`), a comma and another quote. Prose
# that lists header names (`the "Authorization", "Accept" headers`) is no pair. The pair is
# looked for behind the name once the name has matched: one fixed-width lookbehind per name.
def _separator(*names: str) -> str:
    """The `sep` group after one of `names`: groups `esc` and `quote` as in `Patterns.keyed`."""
    pair = "|".join(rf"(?<=[(\[]{escape}[\"']{name})" for name in names for escape in ("", r"\\"))
    between = rf"""(?:(?:{pair})\\*["'][ \t]*,(?=[ \t]*\\*["'])|(?:\\*["'])?[ \t]*[:=])"""
    return rf"""(?P<sep>{between}[ \t]*(?:(?P<esc>\\*)(?P<quote>["']))?)"""


# After a separator that opened a quote (`"password": "…"`), a value runs to the same quote
# with the same escaping (`"` in plain JSON, `\"` in JSON quoted once more) or to the end of
# the line: a passphrase's spaces and a Digest header's quoted, comma-separated parameters
# are all part of the one secret.
_QUOTED = r"(?:(?!(?<!\\)(?P=esc)(?P=quote))[^\r\n])+"
# An `Authorization` value without an opening quote: words, spaces, and quoted parameter
# values (`response="…"`, `response=\"…\"`) after `=` or a space, to the end of the line or
# the first quote or backslash that opens no such value. A quoted parameter holds no quote of
# its own kind, so no character is looked at more than twice.
_PARAMS = (
    r"""(?>(?:[^\s"'\\]+|[ \t]+|(?<=[= \t])(?P<pesc>\\*)(?P<pquote>["'])"""
    r"""(?:(?!(?P=pquote))[^\r\n])*?(?<!\\)(?P=pesc)(?P=pquote))+)"""
)

# Substrings (lower case) without which no pattern can match: a cheap first screen.
_TRIGGERS = (
    "key", "token", "secret", "pass", "pwd", "auth", "bearer", "basic", "-----begin",
    "cookie", "credential", "://", "sig", *TRIGGERS,
)  # fmt: skip
_SCREEN = _re2.RE2("|".join(map(re.escape, sorted(set(_TRIGGERS)))).encode(), _re2.RE2.Options())
_ANYWHERE = _re2.RE2.Anchor.UNANCHORED


class Patterns(NamedTuple):
    """The compiled credential patterns."""

    keyed: re.Pattern[str]
    """A value after a secret-looking key. Groups: `key`, `sep` (the separator, with any
    quotes: `quote` and its backslashes `esc` when it opens one), `scheme` (an optional
    `Bearer `/`Basic `) and `value`; `keyed_secret` says whether it counts."""
    header: re.Pattern[str]
    """`Authorization:` with any scheme or none. Groups: `key`, `sep`, `scheme` (if any) and
    `value`, the whole credential after it: every parameter of a Digest header."""
    cookie: re.Pattern[str]
    """A cookie header. Groups: `key`, `sep` and `value`, the `name=value; …` pairs."""
    url: re.Pattern[str]
    """A URL with a password. Groups: `scheme://user:`, the password."""
    key_name: re.Pattern[str]
    """A whole key name that is secret-looking, for the keys of parsed JSON."""
    spaced: re.Pattern[str]
    """A value after a name and a space: a command-line flag (`--password hunter2`), a
    Dockerfile's `ENV DB_PASSWORD hunter2`, or a `.netrc` password (`machine example.com
    login harness_user password hunter2`). Groups: `key`, `sep`, `value`."""
    pair: re.Pattern[str]
    """A `key="Password" value="…"` (or `name=`) pair of attributes. Groups: `key`, `sep`
    (from the name's closing quote to the value's opening one), `value`."""
    element: re.Pattern[str]
    """An XML element's text (`<password>…</password>`). Groups: `key` (the local name),
    `sep` (the start tag from the name on) and `value`, to the next `<`."""
    scheme: re.Pattern[str]
    """Groups: `Bearer` or `Basic`, the whitespace, the secret."""
    named: tuple[tuple[str, re.Pattern[str]], ...]
    """Each token shape with what it is called."""
    pem: re.Pattern[str]
    """Group 1: the key's label, such as `RSA PRIVATE KEY` or `PGP PRIVATE KEY BLOCK`."""
    stand_in: re.Pattern[str]
    """A value that stands for a secret without being one: `***`, `<redacted>`, `${VAR}`."""


@functools.cache
def patterns() -> Patterns:
    """The credential patterns, compiled on first use."""
    # The key starts a word, follows `_`, `.` or `-`, or starts a camelCase word
    # (`dbPassword`): a lookbehind, not a prefix to match, so that a long run of word parts
    # cannot make the search quadratic.
    keyed = re.compile(
        rf"""(?ix)
        (?:\b|(?<=[_.-])|{CAMEL}|{JOINED})(?P<key>{KEY_WORDS})
        (?P<sep>(?:\\*["'])?{_SPACE}(?:=>|:=|[:=]|%3[ad]){_SPACE}(?:(?P<esc>\\*)(?P<quote>["']))?)
        (?P<scheme>(?:bearer\s+|basic\s+)?)
        (?P<value>(?(quote){_QUOTED}|[^\s"'&,;\\]+))
        """
    )
    header = re.compile(
        rf"""(?ix)
        \b(?P<key>(?:proxy-)?authorization)
        {_separator("authorization", "proxy-authorization")}
        (?P<scheme>(?:[a-z][a-z0-9._~+/-]*[ \t]+)?)
        (?P<value>(?(quote){_QUOTED}|(?=[^\s"'\\]){_PARAMS}))
        """
    )
    cookie = re.compile(
        rf"""(?ix)
        \b(?P<key>(?:set-)?cookie)
        {_separator("cookie", "set-cookie")}
        (?P<value>(?=[^\s"';=\\]+=)(?(quote){_QUOTED}|{_PARAMS}))
        """
    )
    url = re.compile(r"(?i)\b([a-z][a-z0-9+.-]{0,31}://[^\s:/?#@\"'\[\]]*:)([^\s/?#@\"']+)(?=@)")
    # Sixteen words before the secret one at most: a name of a thousand parts is no secret's,
    # and the bound keeps the match linear.
    key_name = re.compile(
        rf"(?i)(?:[a-z0-9]+[_.-]){{0,16}}(?:[a-z0-9]+(?:{CAMEL}|{JOINED}))?"
        rf"(?:{KEY_WORDS}|(?:proxy-)?authorization)"
    )
    # A name of at most 64 characters (a prefix too), attributes of at most 512: an element
    # is looked at from its `<` to the next `<`, once.
    element = re.compile(
        r"<(?:[A-Za-z_][\w.-]{0,31}:)?(?P<key>[A-Za-z_][\w.-]{0,63})"
        r"(?P<sep>(?:\s[^<>]{0,512})?>)(?P<value>[^<]+)(?=</)"
    )
    spaced = re.compile(
        r"""(?i)(?:(?<![\w-])--|(?-i:\bENV)[ \t]+"""
        r"""|\bmachine[ \t]+\S{1,256}[ \t]+login[ \t]+\S{1,256}[ \t]+(?=pass))"""
        r"""(?P<key>[a-z0-9][a-z0-9_-]{0,63})(?P<sep>[ \t]+)(?P<value>[^\s"'-][^\s"']*)"""
    )
    pair = re.compile(
        r"""(?i)\b(?:key|name)=(?P<q>["'])(?P<key>[\w.:-]{1,64})(?P<sep>(?P=q)[ \t]+value="""
        r"""(?P<q2>["']))(?P<value>[^"'<>\r\n]+)(?=(?P=q2))"""
    )
    scheme = re.compile(rf"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{{{MIN_VALUE},}})")
    named = tuple((shape.name, re.compile(shape.pattern)) for shape in SHAPES)
    # A BEGIN line that redaction already cut (`-----BEGIN PRIVATE KEY-----*[REDACTED]`) is
    # no block: taken for an unterminated one, it would swallow the rest of the text.
    pem = re.compile(
        rf"-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----(?!{re.escape(MARK)})"
        r".*?(?:-----END \1-----|\Z)",
        re.DOTALL,
    )
    stand_in = re.compile(_STAND_IN)
    return Patterns(
        keyed=keyed,
        header=header,
        cookie=cookie,
        url=url,
        key_name=key_name,
        spaced=spaced,
        pair=pair,
        element=element,
        scheme=scheme,
        named=named,
        pem=pem,
        stand_in=stand_in,
    )


def keep(secret: str) -> str:
    """What may be shown of `secret`: its first `KEEP` characters (none if it is short), a mark."""
    return (secret[:KEEP] if len(secret) >= 2 * KEEP else "") + MARK


def is_cut(value: str) -> bool:
    """Whether `value` is what `keep` leaves of a secret.

    A header's rest of line may hold a token that redaction already cut (`Credential=AKIA*…`)
    and more beside it: only the rest cut whole counts as redacted.
    """
    return value.endswith(MARK) and len(value) <= KEEP + len(MARK)


def keep_cookie(pairs: str) -> str:
    """What may be shown of a cookie header's pairs: `keep`, unless that would show a value
    (`a=1; b=2` would keep `a=1;`)."""
    return MARK if "=" in pairs[:KEEP] else keep(pairs)


def stands_in(value: str) -> bool:
    """Whether `value` only stands for a secret: empty, a mask, a placeholder, a reference
    (`***`, `<redacted>`, `${NPM_TOKEN}`, `$NPM_TOKEN`), or already redacted."""
    value = value.strip()
    return not value or MARK in value or patterns().stand_in.fullmatch(value) is not None


def keyed_secret(match: re.Match[str]) -> bool:
    """Whether a `Patterns.keyed` match holds a secret.

    Any value that does not stand in for one (`stands_in`) counts, whatever its length, but
    after a bare everyday word (`token`, `auth`, `pwd`, `credential(s)`) it needs `MIN_VALUE`
    characters: `DB_PASSWORD=hunter2`, `NPM_TOKEN=abc` and `githubToken=abc` are secrets,
    `token: short` is not. An unquoted literal (`true`, `null`, `None`) never counts.
    """
    start, value = match.start(), match["value"]
    if not match["quote"] and value in _LITERALS:
        return False
    before = match.string[start - 1] if start > 0 else " "
    bare = not (before.isalnum() or before in "_.-")  # `token`, not `NPM_TOKEN`, `myToken`
    if bare and match["key"].lower() == "pass" and not _assigns(match["sep"]):
        return False  # `the cases pass: …` is prose; `pass=…` names a password
    return _counts(match["key"], value, bare=bare)


def _assigns(separator: str) -> bool:
    """Whether a separator assigns (`=`, `=>`, `:=`, `%3D`) rather than labels (`:`)."""
    return "=" in separator or "%3d" in separator.lower()


def element_secret(match: re.Match[str]) -> bool:
    """Whether a `Patterns.element`, `pair` or `spaced` match holds a secret: its name is
    secret-looking and its text counts as a JSON value under that name would
    (`secret_value`)."""
    return secret_value(match["key"], match["value"].strip())


def secret_key(name: str) -> bool:
    """Whether a JSON key names a secret (`password`, `DB_PASSWORD`, `api-key`…)."""
    return might_hold(name) and patterns().key_name.fullmatch(name) is not None


def secret_value(key: str, value: str) -> bool:
    """Whether `value`, the string under `key` in parsed JSON, is a secret.

    The same rule as a key's value in text (`keyed_secret`): a secret-looking key and a value
    that does not stand in for one, of at least `MIN_VALUE` characters under a bare everyday
    word (`token`, `auth`).
    """
    return secret_key(key) and _counts(key, value, bare=True)


def _counts(key: str, value: str, *, bare: bool) -> bool:
    """The one rule for a value under a secret-looking `key`: it counts unless it stands in
    for a secret, and, under a `bare` everyday word, only from `MIN_VALUE` characters."""
    if stands_in(value):
        return False
    return len(value) >= MIN_VALUE or not bare or key.lower() not in PLAIN_WORDS


def might_hold(text: str) -> bool:
    """Whether `text` holds a trigger word; when it does not, no pattern can match it."""
    # One RE2 scan for every trigger word (Python's `re` tries each one at each character);
    # a lone surrogate, which a tool may produce, is passed through.
    data = text.lower().encode("utf-8", "surrogatepass")
    return bool(_SCREEN.Match(_ANYWHERE, data, 0, len(data))[0] != (-1, -1))


class Found(NamedTuple):
    """One credential found in a text."""

    kind: str
    """What it looks like, e.g. `GitHub token`."""
    secret: str
    """The secret itself (for a PEM block, its BEGIN line): mask it before showing it."""


def find(text: str) -> list[Found]:
    """Every credential in `text`: each token shape in turn, then key blocks, headers, URLs and
    key values.

    A match that overlaps one found before it is the same secret seen twice (`api_key=sk-…`
    is one OpenAI key) and is left out. The spans found so far are disjoint, so they are kept
    sorted and one bisection tells whether a new one overlaps any: a text holding a great
    many credentials stays a quick pass.
    """
    if not might_hold(text):
        return []
    compiled = patterns()
    found: list[Found] = []
    starts: list[int] = []
    ends: list[int] = []

    def add(kind: str, match: re.Match[str], secret: str) -> None:
        start, end = match.span()
        before = bisect.bisect_left(starts, end)  # the spans that start before this one ends
        if before == 0 or ends[before - 1] <= start:
            starts.insert(before, start)
            ends.insert(before, end)
            found.append(Found(kind=kind, secret=secret))

    for index in shapes_in(text):
        name, pattern = compiled.named[index]
        for match in pattern.finditer(text):
            add(name, match, match[0])
    for match in compiled.pem.finditer(text):
        kind = "PGP private key block" if match[1].startswith("PGP") else "PEM private key"
        add(kind, match, f"-----BEGIN {match[1]}-----")
    for match in compiled.header.finditer(text):
        if not is_cut(match["value"]) and not stands_in(match["value"]):
            add(f"secret after {match['key']}", match, match["value"])
    for match in compiled.cookie.finditer(text):
        if MARK not in match["value"]:
            add(f"{match['key']} value", match, match["value"])
    for match in compiled.url.finditer(text):
        if MARK not in match[2]:
            add("password in a URL", match, match[2])
    for match in compiled.keyed.finditer(text):
        if keyed_secret(match):
            add(f"secret after {match['key']}", match, match["value"])
    for pattern in (compiled.element, compiled.pair, compiled.spaced):
        for match in pattern.finditer(text):
            if element_secret(match):
                add(f"secret under {match['key']}", match, match["value"])
    for match in compiled.scheme.finditer(text):
        if MARK not in match[3]:
            add(f"{match[1]} credential", match, match[3])
    return found
