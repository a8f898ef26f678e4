"""The secret patterns (`origin_store.redaction.mask`): one row per kind and per context a secret is
found in, what must not be taken for a secret, this repository's own code as a corpus of
ordinary lines, and properties (the line count never changes, redacting twice is redacting
once, text without a trigger is left as it is).

The planted values are fake (FAKE, EXAMPLE, test keys) but have the real shapes."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from helpers import ROOT
from hypothesis import assume, given
from hypothesis import strategies as st

from origin_store.redaction import mask as redact
from origin_store.redaction.find import Engine, StreamRedactor

AWS_SECRET = "FAKEfake/EXAMPLE+example0123456789FAKEab"
GH = "ghp_FAKEexample0123456789FAKEexample0123"
PEM_BODY = "MIIEowIBAAKCAQEAFAKEEXAMPLEKEYMATERIAL0123456789abcdef"

#: (id, the line, the secret that must go, the mark that must take its place).
FOUND = [
    # one row per kind, in prose
    ("aws-access-key", "my key is AKIAFAKEEXAMPLE12345 ok", "AKIAFAKEEXAMPLE12345", "aws-access-key"),
    ("aws-temporary", "ASIAFAKEEXAMPLE67890 expires", "ASIAFAKEEXAMPLE67890", "aws-access-key"),
    ("aws-secret", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "aws-secret-key"),
    ("github-token", f"push with {GH} now", GH, "github-token"),
    ("github-pat", "github_pat_11FAKEEXAMPLE0123456789_abcdefFAKEexample", "github_pat_11FAKE",
     "github-token"),
    ("github-server", "ghs_FAKEexample0123456789FAKEexample0123", "ghs_FAKE", "github-token"),
    ("anthropic", "sk-ant-api03-FAKEexample0123456789-FAKEexampleAA", "sk-ant-api03",
     "anthropic-key"),
    ("openai", "use sk-FAKEexample0123456789FAKEexampleT3Bl now", "sk-FAKE", "openai-key"),
    ("openai-project", "sk-proj-FAKEexample0123456789FAKEexampleZZ", "sk-proj", "openai-key"),
    ("slack-bot", "xoxb-123456789012-FAKEexample01 in chat", "xoxb-1234", "slack-token"),
    ("slack-user", "xoxp-123456789012-FAKEexample01", "xoxp-1234", "slack-token"),
    ("slack-webhook", "https://hooks.slack.com/services/T00FAKE00/B00FAKE00/FAKEexample0123",
     "T00FAKE00", "slack-webhook"),
    ("stripe-live", "sk_live_FAKEexample0123456789", "sk_live_FAKE", "stripe-key"),
    ("stripe-restricted", "rk_test_FAKEexample0123456789", "rk_test_FAKE", "stripe-key"),
    ("stripe-publishable", "pk_live_FAKEexample0123456789", "pk_live_FAKE", "stripe-key"),
    ("google", "AIzaFAKEexample0123456789_FAKEexample-0", "AIzaFAKE", "google-api-key"),
    ("gitlab", "glpat-FAKEexample0123456789", "glpat-FAKE", "gitlab-token"),
    ("npm", "//registry.npmjs.org/:_authToken=npm_FAKEexample0123456789FAKEexample0123",
     "npm_FAKE", "npm-token"),
    ("huggingface", "hf_FAKEexample0123456789FAKEexample01", "hf_FAKE", "huggingface-token"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJGQUtFIn0.FAKEsignatureEXAMPLE0123", "eyJhbGci",
     "jwt"),
    ("private-key", f"-----BEGIN RSA PRIVATE KEY-----\\n{PEM_BODY}\\n-----END RSA PRIVATE KEY-----",
     PEM_BODY, "private-key"),
    ("private-key-openssh", f"-----BEGIN OPENSSH PRIVATE KEY-----\\n{PEM_BODY}\\n"
     "-----END OPENSSH PRIVATE KEY-----", PEM_BODY, "private-key"),
    ("private-key-cut", f"cat key.pem | head\\n-----BEGIN PRIVATE KEY-----\\n{PEM_BODY}",
     PEM_BODY, "private-key"),
    ("bearer", "Authorization: Bearer FAKEbearer0123456789example", "FAKEbearer", "bearer-token"),
    ("basic", "Authorization: Basic RkFLRTpFWEFNUExFcGFzc3dvcmQ=", "RkFLRTpF", "basic-auth"),
    ("postgres", "postgres://app:FAKEpass0123@db.internal:5432/app", "FAKEpass0123",
     "connection-password"),
    ("https-credentials", "git clone https://bob:FAKEpass0123@git.example.org/x.git",
     "FAKEpass0123", "connection-password"),
    ("password-env", "DB_PASSWORD=FAKE-hunter2", "FAKE-hunter2", "password"),
    ("password-quoted", 'password = "FAKE hunter two"', "FAKE hunter two", "password"),
    ("password-annotated", 'password: str = "FAKEhunter2"', "FAKEhunter2", "password"),
    ("passphrase", "PASSPHRASE=FAKEphrase99", "FAKEphrase99", "password"),
    ("token-env", "GITHUB_TOKEN=FAKEtoken0123", "FAKEtoken0123", "secret"),
    ("api-key-camel", "apiKey: 'FAKEapikey0123'", "FAKEapikey0123", "secret"),
    ("api-key-header", "X-Api-Key: FAKEapikey0123", "FAKEapikey0123", "secret"),
    ("client-secret", "client_secret=FAKEclientSecret0123", "FAKEclientSecret0123", "secret"),
    ("access-token", "accessToken=FAKEaccess0123", "FAKEaccess0123", "secret"),
    # each context, with a value the prose rows do not use
    ("json-string", '{"text": "the key is AKIAFAKEEXAMPLE22222"}', "AKIAFAKEEXAMPLE22222",
     "aws-access-key"),
    ("json-field", '{"password": "FAKE-json-pass", "user": "bob"}', "FAKE-json-pass",
     "password"),
    ("json-in-json", '{"content": "{\\"api_key\\": \\"FAKEnested0123\\"}"}', "FAKEnested0123",
     "secret"),
    ("json-escaped-env", '{"content": "export PASSWORD=\\"FAKEpw0123\\"\\nNEXT=1"}',
     "FAKEpw0123", "password"),
    ("json-after-newline", '{"content": "keys:\\nAKIAFAKEEXAMPLE33333\\n"}',
     "AKIAFAKEEXAMPLE33333", "aws-access-key"),
    ("diff-added", "+API_KEY=FAKEdiffKey0123", "FAKEdiffKey0123", "secret"),
    ("diff-removed", f"-SLACK={GH}", GH, "github-token"),
    ("env-file", "STRIPE_SECRET_KEY=sk_test_FAKEexample0123456789", "sk_test_FAKE", "stripe-key"),
    ("yaml", "  db_password: FAKEyaml0123", "FAKEyaml0123", "password"),
    ("yaml-quoted", "  token: \"FAKEyamlToken0123\"", "FAKEyamlToken0123", "secret"),
    ("shell-export", "export OPENAI_API_KEY='FAKEshell0123'", "FAKEshell0123", "secret"),
    ("shell-inline", "TOKEN=FAKEinline0123 ./deploy.sh", "FAKEinline0123", "secret"),
    ("url-query", "https://api.example.org/v1?token=FAKEquery0123&page=2", "FAKEquery0123",
     "secret"),
    ("cli-flag", "mysql --password=FAKEflag0123 -u root", "FAKEflag0123", "password"),
    ("python-kwarg-literal", 'connect(password="FAKEkw0123")', "FAKEkw0123", "password"),
    ("toml", 'secret_key = "FAKEtoml0123"', "FAKEtoml0123", "secret"),
]  # fmt: skip

#: Lines that name secrets, or look like them, and hold none: left as they are.
LEFT = [
    "commit 3780f3d5a1b2c3d4e5f60718293a4b5c6d7e8f90 fixes the loader",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "session 3f991554-ff99-4f84-bfcc-b2ed94e580ae started",
    '{"data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}',
    "dGVzdCBkYXRhIGZvciBiYXNlNjQgZW5jb2Rpbmc=",
    "def login(user, password=None):",
    "password: str",
    "password: Optional[str] = None",
    "token = get_token()",
    "token = token",
    "self.token = token",
    "password = os.environ['DB_PASSWORD']",
    "token = process.env.TOKEN",
    "api_key=<your-key>",
    "API_KEY=your_api_key_here",
    "TOKEN=${TOKEN}",
    "TOKEN=$GITHUB_TOKEN",
    "password: xxx",
    "password=********",
    "password=changeme",
    "secret: ...",
    "token: {{ secrets.TOKEN }}",
    "password = '%s'",
    "f(password=pw)",
    "max_tokens: 4096",
    "token_type = \"bearer\"",
    "input_tokens=812",
    "the password: type it twice",
    "Every token: name, scope, created",
    "if token == expected:",
    "a Bearer token is required",
    "PWD=/home/dev/project",
    "password_file: /run/secrets/db",
    "postgres://localhost:5432/app",
    "ssh://git@github.com/org/repo.git",
    "https://user:${PASSWORD}@example.org",
    "task-list-for-the-migration-of-the-loader",
    "sk-learn is a library",
    "tokenizer.encode(text)",
    "LOCAL_TOKEN = \"local\"",
    "password = [redacted password]",
    "see -----BEGIN CERTIFICATE----- for the chain",
]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "secret", "kind"), [r[1:] for r in FOUND], ids=[r[0] for r in FOUND]
)
def test_a_secret_is_masked_where_it_stood(line: str, secret: str, kind: str):
    masked, counts = redact.redact_text(line)
    assert secret not in masked, masked
    assert f"[redacted {kind}]" in masked and counts[kind] >= 1, (masked, counts)
    assert line.startswith(masked[: masked.index("[redacted ")])  # what came before is kept


def test_every_kind_has_a_row():
    assert {row[3] for row in FOUND} == set(redact.KINDS)


@pytest.mark.parametrize("line", LEFT)
def test_what_is_not_a_secret_is_left_alone(line: str):
    assert redact.redact_text(line) == (line, {})


def test_the_name_is_kept_and_the_value_masked():
    assert redact.redact_text("DB_PASSWORD=FAKE-hunter2")[0] == "DB_PASSWORD=[redacted password]"
    assert redact.redact_text('{"token": "FAKEtok0123"}')[0] == '{"token": "[redacted secret]"}'
    assert (
        redact.redact_text("postgres://app:FAKEpass0123@db:5432/x")[0]
        == "postgres://app:[redacted connection-password]@db:5432/x"
    )
    assert redact.redact_text("Authorization: Bearer FAKEbearer0123456789x")[0] == (
        "Authorization: Bearer [redacted bearer-token]"
    )


@pytest.mark.parametrize("row", FOUND, ids=[r[0] for r in FOUND])
def test_a_json_line_stays_json(row: tuple[str, str, str, str]):
    """A secret inside a JSON string, escaped as JSON escapes it: the line still parses, and
    only the secret changed."""
    line = orjson.dumps({"content": row[1].replace("\\n", "\n"), "n": 1})
    masked, _ = redact.redact_line(line)
    parsed = orjson.loads(masked)
    assert row[2] not in parsed["content"] and parsed["n"] == 1


def test_a_private_key_over_several_lines_is_masked_line_by_line():
    lines = [
        b"$ cat ~/.ssh/id_rsa\n",
        b"-----BEGIN RSA PRIVATE KEY-----\n",
        PEM_BODY.encode() + b"\n",
        b"FAKEEXAMPLE0123456789abcdefFAKE==\n",
        b"-----END RSA PRIVATE KEY-----\n",
        b"$ ls\n",
    ]
    done = redact.redact_lines(lines)
    assert len(done.lines) == len(lines) and done.lines[0] == lines[0] and done.lines[5] == lines[5]
    assert all(line == b"[redacted private-key]\n" for line in done.lines[1:5]), done.lines
    assert done.counts == {"private-key": 1} and not done.open_key


def test_a_private_key_split_between_batches_is_masked_in_both():
    first = redact.redact_lines([b"-----BEGIN EC PRIVATE KEY-----\n", PEM_BODY.encode() + b"\n"])
    assert first.open_key and b"MIIE" not in b"".join(first.lines)
    second = redact.redact_lines(
        [PEM_BODY.encode() + b"\n", b"-----END EC PRIVATE KEY-----\n", b"done\n"],
        open_key=True,
    )
    assert second.lines[2] == b"done\n" and b"MIIE" not in b"".join(second.lines)
    # a pass that never saw the BEGIN line still masks the key's lines before its END line
    alone = redact.redact_lines(
        [b"ok\n", PEM_BODY.encode() + b"\n", b"-----END EC PRIVATE KEY-----\n"]
    )
    assert alone.lines[0] == b"ok\n" and b"MIIE" not in b"".join(alone.lines)


def test_a_secret_across_chunks_of_a_streamed_line_is_caught():
    """An oversized line is redacted as it streams: a secret cut by a chunk boundary too."""
    secret = b"AKIAFAKEEXAMPLE44444"
    line = b"x" * 300_000 + b" " + secret + b" " + b"y" * 300_000 + b" " + GH.encode() + b"\n"
    for cut in (300_005, 300_010, 150_000):
        stream = StreamRedactor(redact._ENGINE)
        chunks = [line[:cut], line[cut : cut + 70_000], line[cut + 70_000 :]]
        out = b"".join(stream.redact(chunks))
        assert secret not in out and GH.encode() not in out
        assert out == redact.redact_line(line)[0]
        assert stream.counts == {"aws-access-key": 1, "github-token": 1}


def test_the_scan_without_the_package_finds_the_same():
    """`bytes.find` per trigger (without ahocorasick_rs) masks exactly what the automaton does."""
    slow = Engine(redact.PATTERNS, fast=False)
    lines = [row[1].encode() + b"\n" for row in FOUND] + [line.encode() + b"\n" for line in LEFT]
    assert slow.lines(lines).lines == redact.redact_lines(lines).lines


# -- this repository as a corpus of ordinary lines ------------------------------------------


def _corpus() -> list[Path]:
    found = [
        *ROOT.glob("origin_*/**/*.py"),
        *ROOT.glob("tests/**/*.py"),
        *ROOT.glob("docs/*.md"),
    ]
    planted = re.compile(r"test_redact")  # this file and its siblings plant secrets on purpose
    return sorted(p for p in found if not planted.search(p.name))


def test_ordinary_code_is_almost_never_touched():
    changed: list[str] = []
    total = 0
    for path in _corpus():
        lines = path.read_bytes().splitlines(keepends=True)
        total += len(lines)
        done = redact.redact_lines(lines)
        changed += [
            f"{path.relative_to(ROOT)}: {before.decode(errors='replace').strip()}"
            for before, after in zip(lines, done.lines, strict=True)
            if before != after
        ]
    assert total > 20_000
    assert len(changed) < total / 1000, "\n".join(changed)


# -- properties -----------------------------------------------------------------------------

_pieces = st.sampled_from(
    [row[1] for row in FOUND]
    + LEFT
    + ["\n", "\\n", '"', "'", "=", ": ", " ", "-----END RSA PRIVATE KEY-----", PEM_BODY, "é"]
)
_texts = st.lists(st.one_of(_pieces, st.text(max_size=30)), max_size=12).map("".join)


@given(_texts)
def test_redaction_never_changes_the_number_of_lines(text: str):
    masked, _ = redact.redact_text(text)
    assert masked.count("\n") == text.count("\n")
    lines = [line.encode() + b"\n" for line in text.split("\n")]
    assert len(redact.redact_lines(lines).lines) == len(lines)
    assert all(line.endswith(b"\n") for line in redact.redact_lines(lines).lines)


@given(_texts)
def test_redacting_twice_is_redacting_once(text: str):
    once, _ = redact.redact_text(text)
    assert redact.redact_text(once) == (once, {})


_TRIGGERS = {literal for pattern in redact.PATTERNS for literal, _ in pattern.triggers}


@given(st.text(max_size=300))
def test_text_without_a_trigger_is_left_as_it_is(text: str):
    raw = text.encode("utf-8", "surrogatepass")
    assume(not any(literal in raw for literal in _TRIGGERS))
    assert redact.redact_text(text) == (text, {})
    assert redact.redact_lines([raw + b"\n"]).lines == [raw + b"\n"]


_tricky = st.sampled_from(
    ["password:", "password=", "token: ", "api_key=", "secret = ", '"', "'", "\\", "\n", "}", ","]
)
_strings = st.lists(st.one_of(_pieces, _tricky, st.text(max_size=8)), max_size=8).map("".join)
#: Keys are not masked into one another here (two keys both masked would be one key).
_keys = st.one_of(_tricky, st.text(max_size=6))
_json = st.recursive(
    st.one_of(_strings, st.integers(-(2**53), 2**53), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=12,
)


def _shape(value: object) -> object:
    """A JSON value with every string replaced by its type: what redaction must keep."""
    if isinstance(value, dict):
        return [("key", _shape(v)) for v in value.values()]
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return "str" if isinstance(value, str) else value


@given(st.dictionaries(_keys, _json, min_size=1, max_size=5))
def test_a_json_line_keeps_its_shape(value: dict[str, object]):
    """Whatever its strings hold (a name at the very end of one, escaped quotes, a secret),
    a JSON line is still JSON of the same shape once redacted."""
    line = orjson.dumps(value)
    masked, _ = redact.redact_line(line)
    assert _shape(orjson.loads(masked)) == _shape(value)
