"""What a matched value must be to count as a secret: the `real` checks of `redact`'s table.

A shape alone over-reaches: `password: str` is a type, `token = get_token()` is code,
`API_KEY=<your-key>` is a placeholder, and in a JSON line the quote after `password:` may be the
one that ends the string holding it. These checks read a match (and the line around it) and say
whether it is a secret; docs/redaction.md lists what they leave alone.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(
    rb"(?i)(?:[$%{<*#@:?!&|]|\[redacted |\.\.\.|\xe2\x80\xa6|your[ _-]|my[_-]|<"
    rb"|.*(?:example|placeholder|changeme|change[_-]me|dummy|redacted|replace[_-]?me)"
    rb"|(?:x+|\*+|-+|\.+|0+|1234|12345|123456|test|testing|secret|password|passwd|pass|pwd"
    rb"|token|key|apikey|api[_-]key|none|null|nil|true|false|undefined|required|optional"
    rb"|todo|tbd|hidden|masked|empty|string|str|int|bool|bytes|env|value|foo|bar|baz)\Z)"
)
_TYPE_WORDS = frozenset(
    b"str string int integer bool boolean bytes number any object none null optional "
    b"secretstr text varchar char list dict float".split()
)
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_CODE_PATH = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_PROSE_AFTER = re.compile(rb"[ \t]+(?:[A-Za-z]|\[redacted )")  # words, or words masked


def placeholder(value: bytes) -> bool:
    """A value that stands for a secret without being one (`${TOKEN}`, `<key>`, `xxx`, …)."""
    return bool(_PLACEHOLDER.match(value)) or len(set(value)) == 1


def _json_quotes_agree(match: re.Match[bytes]) -> bool:
    """Whether a double-quoted value's quotes are the value's own. In a JSON line the quote
    after `password:` may be the one that ends the JSON string holding it: a value's quote
    must be escaped as its name's was (`"password": "…"`, `\\"password\\": \\"…\\"`), and
    escaped when its name is not quoted (prose inside a JSON string)."""
    value_quote = match.group("vq")
    name_quote = match.group("nq")
    if name_quote is not None:
        return name_quote[:-1] == value_quote if name_quote.endswith(b'"') else True
    text = match.string
    start = text.rfind(b"\n", 0, match.start()) + 1
    json_line = text[start : start + 64].lstrip()[:1] in (b"{", b"[")
    return bool(value_quote) or not json_line


def assigned(match: re.Match[bytes]) -> bool:
    """Whether an assignment to a secret's name holds a secret rather than code or prose."""
    quoted = match.group("dq") or match.group("sq")
    value = quoted or match.group("bare") or b""
    if not value or placeholder(value):
        return False
    if match.group("dq") is not None and not _json_quotes_agree(match):
        return False
    if quoted:
        return True
    if match.group("nq") == b'"':
        return False  # `"token": 12345` in JSON: a number, true or null, never masked as text
    after = match.string[match.end() : match.end() + 1]
    if after in (b"(", b"[", b".") or _CODE_PATH.fullmatch(value):
        return False  # a call, an index, an attribute: code that fetches the secret
    if value[:1] in (b"/", b"~") or value.startswith(b"./"):
        return False  # a path (`PWD=/home/dev`, `password_file: /run/secrets/db`)
    if value.isdigit() and len(value) < 6:
        return False  # `token: 3`: a count, not a secret
    colon = b":" in match.group("sep")
    if colon and (after == b"," or _PROSE_AFTER.match(match.string, match.end())):
        return False  # "the password: type it twice", "token: name, scope": prose
    name = match.group("name")
    if _IDENTIFIER.fullmatch(value) and not any(c in b"0123456789" for c in value):
        lowered = value.lower()
        if lowered.endswith(name.lower()) or lowered in _TYPE_WORDS:
            return False  # `password=password`, `token = access_token`, `password: str`
        if colon:
            return not value[:1].isupper()  # `password: SecretStr` is a type
        # `API_KEY=abc` in an env file is a secret; `f(password=pw)`, `token = tok` are code
        return name.isupper() and b" " not in match.group("sep")
    return True


def _random(value: bytes) -> bool:
    """Whether a token's or key's value looks made by a machine rather than a word
    (`token="reader"` names a token; `token="r3ad3r-x9"` is one)."""
    if len(value) >= 20:
        return True
    digits = any(c in b"0123456789" for c in value)
    upper = any(65 <= c <= 90 for c in value)
    lower = any(97 <= c <= 122 for c in value)
    return (
        (digits and (upper or lower))
        or (upper and lower)
        or (len(value) >= 8 and not value.isalpha())
    )


def assigned_token(match: re.Match[bytes]) -> bool:
    value = match.group("dq") or match.group("sq") or match.group("bare") or b""
    return _random(value) and assigned(match)


def url_password(match: re.Match[bytes]) -> bool:
    value = match.group("pw")
    return not placeholder(value) and not (value.isdigit() and len(value) <= 5)


def has_digit_and_upper(match: re.Match[bytes]) -> bool:
    value = match.group(0)
    return any(c in b"0123456789" for c in value) and any(65 <= c <= 90 for c in value[3:])
