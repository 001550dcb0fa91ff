"""Secret-looking names: the words that say a key's value is a secret, in every spelling.

A key is secret-looking when it is one of `KEY_WORDS`, or ends in one after `_`, `.` or `-`
(`DB_PASSWORD`), in camelCase (`dbPassword`, `CAMEL`) or joined to a word of the same case
(`PGPASSWORD`, `dbpassword`: `JOINED`); `secret` counts anywhere in a name, `sig` and `key`
only in a query string (`&sig=`). `harness.credentials` builds its patterns from
these, and decides with `PLAIN_WORDS` which words, standing alone, are everyday ones.
"""

from __future__ import annotations

__all__ = ["CAMEL", "JOINED", "KEY_WORDS", "PLAIN_WORDS"]

# Where a camelCase word starts: after a lower-case letter or digit (`db|Password`), or in a
# run of capitals before the one that starts a word (`DB|Password`, `openAI|ApiKey`); one
# capital is not a word (`OAuth`). Case matters here, inside patterns that otherwise ignore it.
CAMEL = "(?:(?<=(?-i:[a-z0-9]))(?=(?-i:[A-Z]))|(?<=(?-i:[A-Z]{2}))(?=(?-i:[A-Z][a-z])))"
# A pagination cursor, which APIs hand back in every listing (`nextPageToken`, `NextToken`,
# `ContinuationToken`), is no credential: `token` right after one of these words is not one.
# One fixed-width lookbehind per word and separator, as Python's lookbehinds must be.
_CURSORS = ("page", "next", "prev", "previous", "continuation")
_NOT_CURSOR = "".join(f"(?<!{word})(?<!{word}[_.-])" for word in _CURSORS)
# The words that make a key secret-looking: the whole key, or its last word after `_`, `.` or
# `-` or in camelCase (`DB_PASSWORD`, `dbPassword`); `secret` counts anywhere, with up to eight
# words after it (`AWS_SECRET_ACCESS_KEY`, `stripeSecretKey`). Bounded, so that a long run of
# `secret_secret_…` is one pass, not one pass from each `secret`; a camelCase word ends at the
# next capital, so no word runs on through a long camelCase run; and atomic, so that no words
# are tried again, fewer, when no separator follows them.
KEY_WORDS = (
    rf"api[_-]?key|access[_-]?token|refresh[_-]?token|auth[_-]?token|{_NOT_CURSOR}token|"
    r"client[_-]?secret|"
    rf"secret(?>(?:[_.-][a-z0-9]+|{CAMEL}(?-i:[A-Z][a-z0-9]*)){{0,8}})|"
    r"pass(?:[_-]?word|[_-]?phrase|wd)?|pwd|auth|private[_-]?key|"
    r"(?:access|account|shared[_-]?access|signing|encryption|master|subscription)[_-]?key|"
    r"credentials?|signature|(?<=[?&;])(?:sig|key)"
)
# A secret word at the end of a name written as one word, all in capitals (`PGPASSWORD`,
# `REDISPASS`) or all in lower case (`dbpassword`, `csrftoken`): where such a word starts
# after other letters or digits of the same case. Not `pwd` (`OLDPWD` is the shell's), nor a
# lower-case `pass` (`bypass`, `compass`).
JOINED = (
    "(?:(?<=(?-i:[A-Z0-9]))(?=(?-i:PASS|SECRET|TOKEN|API_?KEY))"
    "|(?<=(?-i:[a-z0-9]))(?=(?-i:password|passwd|passphrase|secret|token|api_?key)))"
)
# Everyday words when they stand alone: language-model prose is full of tokens, `pwd` is the
# shell's working directory. Bare, their value needs `MIN_VALUE` characters to count; any
# other secret-looking name (`password`, `NPM_TOKEN`, `x-auth`, `api_key`) says what its value
# is, so one character is enough.
PLAIN_WORDS = frozenset(
    {"token", "auth", "pwd", "pass", "credential", "credentials", "signature", "sig", "key"}
)
