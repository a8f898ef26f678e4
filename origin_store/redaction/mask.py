"""Secrets masked before anything is stored: the one table of secret shapes, and the functions
that mask them in a raw line, a batch of lines or a text.

Tool inputs and outputs hold whatever an agent saw (`.env` files, API keys, private keys), and
everything Origin keeps (the store, the index, the mirrors, the row logs) is made from what
ingest reads. So each batch of lines is redacted before it is parsed or mirrored: a secret
becomes `[redacted <kind>]` and the rest of the line stays as it was. A line never gains or loses
a newline, so line N of a mirror is still line N of the original, and JSON stays JSON (a masked
span never holds a quote or an escape's backslash).

Speed: most lines hold no secret, and ingest must not slow down for them. Every pattern names
the literal strings ("triggers") that any of its matches contains and where the match starts
relative to them; one scan of a whole batch for all triggers at once (`redact_find`) finds the
few places worth a regular expression, and a batch without a trigger costs that scan alone.

What looks like a secret but is not, on purpose (docs/redaction.md): hashes, UUIDs and base64
data (no trigger, or no shape), placeholders (`<your-key>`, `${TOKEN}`, `xxx`, `changeme`,
`your_api_key`, `%s`, `None`), and code that names a secret without holding one
(`password: str`, `token = get_token()`, `password=password`, `self.token`).
"""

from __future__ import annotations

import re
from collections import Counter

from .find import ENABLED, MARK, SEARCH, Engine, Pattern, Redacted, StreamRedactor, disabled, masked
from .values import assigned, assigned_token, has_digit_and_upper, placeholder, url_password

__all__ = [
    "KINDS",
    "MARK",
    "PATTERNS",
    "Pattern",
    "Redacted",
    "StreamRedactor",
    "disabled",
    "enabled",
    "masked",
    "placeholder",
    "redact_line",
    "redact_lines",
    "redact_text",
    "stream",
]

#: A JSON or shell quote, possibly escaped (a JSON string inside a JSON line: `\"`).
_Q = rb"(?:\\{0,7}[\"'])?"
#: The quote that closes a name (`"password": …`), kept to compare with the value's.
_NAME_Q = rb"(?P<nq>\\{0,7}[\"'])?"
#: A type annotation between a name and its value (`password: str = "…"`).
_HINT = rb"(?:[ \t]*:[ \t]*[A-Za-z_][A-Za-z0-9_.\[\], |]{0,60}?(?=[ \t]*=[^=]))?"
#: A bare value's characters: printable ASCII but for quotes, brackets, `,` and `;` (a secret
#: is ASCII; prose around it often is not, and must not be taken for its end).
_BARE = rb"[!#$%&*+\-./0-9:=?@A-Z^_a-z|~]"
#: An assignment: `=`, `:`, `:=`, `=>`; never `==`, `::` or `://`.
_SEP = rb"(?P<sep>[ \t]{0,8}(?:=>|:=|=(?!=)|:(?![:/]))[ \t]{0,8})"
#: The assigned value: double-quoted, single-quoted (escaped quotes allowed around either, and
#: escapes inside, never a quote's own backslash), or bare up to a space, quote or bracket.
_VALUE = (
    rb"(?:(?P<vq>\\{0,7})\"(?P<dq>(?:[^\"\\\r\n]|\\+(?![\\\"])){1,512})(?P=vq)\""
    rb"|(?P<vs>\\{0,7})'(?P<sq>(?:[^'\"\\\r\n]|\\+(?![\\'\"])){1,512})(?P=vs)'"
    rb"|(?P<bare>" + _BARE + rb"{1,512})(?!" + _BARE + rb"))"
)
#: Left edge of a token: not inside a word, but right after a JSON escape such as `\n`.
_EDGE = rb"(?:(?<=\\[nrt])|(?<![A-Za-z0-9]))"
_EDGE_ = rb"(?:(?<=\\[nrt])|(?<![A-Za-z0-9_-]))"  # for tokens that may hold `_` and `-`


def _cases(*stems: bytes, back: int) -> tuple[tuple[bytes, int], ...]:
    return tuple((stem, back) for stem in stems)


# -- the table --------------------------------------------------------------------------------

_PEM_BODY = rb"(?:[A-Za-z0-9+/=:,.\s-]|\\[nrt]|\\\\)"
_PEM_END = rb"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"

PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        "private-key",
        re.compile(
            rb"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:"
            + _PEM_BODY
            + rb"{0,16384}?"
            + _PEM_END
            + rb"|"
            + _PEM_BODY
            + rb"{0,16384}(?P<open>))"
        ),
        "a PEM or PGP private key, the whole block (its newlines real or JSON's `\\n`); "
        "without its END line, the key material that follows",
        ((b"PRIVATE KEY", SEARCH),),
    ),
    Pattern(
        "aws-access-key",
        re.compile(_EDGE + rb"(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        "AWS access key ids: AKIA (long-term) or ASIA (temporary) and 16 capitals or digits",
        _cases(b"AKIA", b"ASIA", back=0),
    ),
    Pattern(
        "aws-secret-key",
        re.compile(
            rb"(?i:secret[_-]?access[_-]?key)(?![A-Za-z0-9_])"
            + _Q
            + _SEP
            + rb"(?:\\{0,7}[\"'])?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        "an AWS secret access key (40 base64 characters) assigned to its usual names",
        _cases(b"ecret", b"ECRET", back=1),
        group="v",
    ),
    Pattern(
        "github-token",
        re.compile(
            _EDGE_ + rb"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,247})"
            rb"(?![A-Za-z0-9_])"
        ),
        "GitHub tokens: personal (ghp_), OAuth (gho_), user-to-server (ghu_), server (ghs_), "
        "refresh (ghr_) and fine-grained (github_pat_)",
        _cases(b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_", back=0),
    ),
    Pattern(
        "anthropic-key",
        re.compile(_EDGE_ + rb"sk-ant-[A-Za-z0-9_-]{20,512}"),
        "Anthropic API and admin keys (sk-ant-…)",
        _cases(b"sk-", back=0),
    ),
    Pattern(
        "openai-key",
        re.compile(_EDGE_ + rb"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,512}"),
        "OpenAI-style keys (sk-…, sk-proj-…): 20 or more characters with a digit and a capital, "
        "so a kebab-case name after `sk-` is not one",
        _cases(b"sk-", back=0),
        real=has_digit_and_upper,
    ),
    Pattern(
        "slack-token",
        re.compile(_EDGE + rb"xox[abposre]-[A-Za-z0-9-]{10,512}"),
        "Slack bot, user, app, refresh and config tokens (xoxb-, xoxp-, xoxa-, xoxr-, …)",
        _cases(b"xox", back=0),
    ),
    Pattern(
        "slack-webhook",
        re.compile(
            rb"hooks\.slack\.com/(?P<v>(?:services|workflows|triggers)/[A-Za-z0-9/_+-]{10,512})"
        ),
        "a Slack incoming webhook's path (the host is kept)",
        _cases(b"hooks.slack.com", back=0),
        group="v",
    ),
    Pattern(
        "stripe-key",
        re.compile(_EDGE + rb"[spr]k_(?:live|test)_[A-Za-z0-9]{10,512}"),
        "Stripe secret, restricted and publishable keys, live and test",
        _cases(b"k_live_", b"k_test_", back=1),
    ),
    Pattern(
        "google-api-key",
        re.compile(_EDGE_ + rb"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
        "Google API keys (AIza and 35 characters)",
        _cases(b"AIza", back=0),
    ),
    Pattern(
        "gitlab-token",
        re.compile(_EDGE_ + rb"glpat-[0-9A-Za-z_-]{20,512}"),
        "GitLab personal access tokens (glpat-)",
        _cases(b"glpat-", back=0),
    ),
    Pattern(
        "npm-token",
        re.compile(_EDGE_ + rb"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
        "npm access tokens (npm_ and 36 characters)",
        _cases(b"npm_", back=0),
    ),
    Pattern(
        "huggingface-token",
        re.compile(_EDGE_ + rb"hf_[A-Za-z0-9]{34,40}(?![A-Za-z0-9])"),
        "Hugging Face tokens (hf_ and 34 or more letters and digits)",
        _cases(b"hf_", back=0),
    ),
    Pattern(
        "jwt",
        re.compile(
            _EDGE_ + rb"eyJ[A-Za-z0-9_-]{8,8192}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{0,4096}"
        ),
        "JSON Web Tokens: a JSON header and payload in base64url (both start eyJ), signed or not",
        _cases(b"eyJ", back=0),
    ),
    Pattern(
        "bearer-token",
        re.compile(
            rb"(?i:bearer)(?:[ \t]+|%20)(?P<v>(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,4096})"
        ),
        "the credential of an `Authorization: Bearer …` header (16 or more characters, a digit)",
        _cases(b"earer", b"EARER", back=1),
        group="v",
    ),
    Pattern(
        "basic-auth",
        re.compile(
            rb"(?i:authorization)"
            + _Q
            + _SEP
            + rb"(?:\\{0,7}[\"'])?(?i:basic)[ \t]+(?P<v>[A-Za-z0-9+/]{8,4096}={0,2})"
        ),
        "the user:password of an `Authorization: Basic …` header (base64)",
        _cases(b"uthorization", b"UTHORIZATION", back=1),
        group="v",
    ),
    Pattern(
        "connection-password",
        re.compile(
            rb"(?<=[A-Za-z0-9])://[^\s:/@\"'\\<>]{1,128}:(?P<pw>[^\s@/\"'\\<>]{1,256})@"
            rb"(?=[A-Za-z0-9\[])"
        ),
        "the password of a URL or connection string (postgres://user:password@host): "
        "scheme, user and host are kept",
        _cases(b"://", back=0),
        group="pw",
        real=url_password,
    ),
    Pattern(
        "password",
        re.compile(
            rb"(?P<name>(?i:pass(?:word|wd|phrase)|pwd))(?![A-Za-z0-9_])"
            + _NAME_Q
            + _HINT
            + _SEP
            + _VALUE
        ),
        'a value assigned to a password\'s name (DB_PASSWORD=…, "password": "…", '
        "password: …): the name is kept",
        (*_cases(b"assw", b"ASSW", b"assphrase", b"ASSPHRASE", back=1),)
        + _cases(b"pwd", b"PWD", b"Pwd", back=0),
        group=("dq", "sq", "bare"),
        real=assigned,
    ),
    Pattern(
        "secret",
        re.compile(
            rb"(?P<name>(?i:secret(?:[_-]?access)?(?:[_-]?key)?|token|api[_-]?key"
            rb"|access[_-]?key|private[_-]?key))(?![A-Za-z0-9_])" + _NAME_Q + _HINT + _SEP + _VALUE
        ),
        "a value assigned to a token's, secret's or key's name (GITHUB_TOKEN=…, "
        '"api_key": "…", client_secret: …): the name is kept',
        _cases(b"ecret", b"ECRET", back=1)
        + tuple(
            (stem + end, 1)
            for stem in (b"oken", b"OKEN")
            for end in (b'"', b"'", b"=", b":", b"\\", b" =")
        )
        + _cases(
            b"pi_key",
            b"pi-key",
            b"pikey",
            b"piKey",
            b"PI_KEY",
            b"PI-KEY",
            b"PIKEY",
            b"PIKey",
            b"pi-Key",
            b"rivate_key",
            b"rivateKey",
            b"RIVATE_KEY",
            back=1,
        )  # fmt: skip
        + _cases(b"ccess_key", b"ccessKey", b"CCESS_KEY", b"ccess-key", back=2),
        group=("dq", "sq", "bare"),
        real=assigned_token,
    ),
)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(p.kind for p in PATTERNS))


_ENGINE = Engine(PATTERNS)


def redact_lines(lines: list[bytes], *, open_key: bool = False) -> Redacted:
    """A batch of complete lines (each ending in a newline) with their secrets masked: the same
    list when nothing was found. `open_key`: the batch starts inside a private key block."""
    return _ENGINE.lines(lines, open_key=open_key)


def redact_line(line: bytes) -> tuple[bytes, Counter[str]]:
    """Bytes (a raw line, or a text with lines of its own), secrets masked, and how many of
    each kind: the same object when nothing was found."""
    if b"\n" not in line:
        lines = [line]
    else:
        parts = line.split(b"\n")
        lines = [part + b"\n" for part in parts[:-1]]
        if parts[-1]:
            lines.append(parts[-1])
    done = _ENGINE.lines(lines)
    return (line if done.lines is lines else b"".join(done.lines)), done.counts


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """A text (an event's, a title) with its secrets masked: the same string when none is."""
    raw = text.encode("utf-8", "surrogatepass")
    done, counts = redact_line(raw)
    return (text if done is raw else done.decode("utf-8", "surrogatepass")), counts


def stream() -> StreamRedactor:
    """A redactor for one line too long to hold, fed chunk by chunk."""
    return StreamRedactor(_ENGINE)


def enabled() -> bool:
    """Whether ingest redacts (always, but in tests of `origin redact --rescan`)."""
    return ENABLED[0]
