"""Builds the project's own samples of Cursor's databases into a copy of tests/data/cursor/.

tests/data/cursor/ stands for a home directory: `.config/Cursor/User` is the IDE's user folder
(Linux), `.cursor` is `~/.cursor`, so `cursor.SOURCE.roots({}, <the copy>)` finds everything.
The text files there (transcripts, workspace.json, meta.json) are kept in the repository; the
SQLite files are not: `build(root)` writes them into a copy, in Cursor's own schemas, next to
the text files (the tests do this in a temporary folder). Standard library only;
`python tests/data/cursor/make_db.py <target>` copies the text files and builds one by hand.
Deterministic: the same rows every run.

Every message, id and path is made up for these samples. Values starting `FAKE-` stand where
Cursor keeps credentials and keys, so that a test can show that none of them is ever read.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
IDE = ".config/Cursor/User"
TIDE = "/home/dev/tide"
WIKI = "/home/dev/笔记/wiki"

COMPOSER = "4f0c2d9e-7a1b-4c3d-9e8f-0a1b2c3d4e5f"  # agent mode, named, tools
UNNAMED = "7d3e1f20-5b6a-4c8d-8e9f-1a2b3c4d5e6f"  # chat mode, no name, CJK, times in ms
DRAFT = "0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b"  # never sent
INLINE = "2a4c6e8f-0b1d-4f3a-9c5e-7a9b1c3d5e7f"  # an older version's inline conversation
AGENT = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"  # CLI chat with meta.json
AGENT_WIKI = "8a9b0c1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d"  # CLI chat named "New Agent"

KV_SCHEMA = """
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
"""
CLI_SCHEMA = """
CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
"""


def dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def fresh(path: Path, schema: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(schema)
    return connection


def tool(
    name: str, status: str, args: dict[str, Any], result: object = None, number: int = 0
) -> dict[str, Any]:
    found = {"tool": number, "toolCallId": f"call-{name}-{status}", "name": name,
             "status": status, "rawArgs": dump(args), "params": dump(args),
             "additionalData": {"note": "not read"}}  # fmt: skip
    if result is not None:
        found["result"] = dump(result)
    return found


# Bubble ids are chosen so that their key order is not the conversation's: the first user
# bubble sorts last, as random ids do.
COMPOSER_BUBBLES = [
    {"bubbleId": "f1c2-user", "type": 1, "createdAt": "2026-10-27T10:00:01.000Z",
     "text": "Tokenizing is slow on every search. Cache the tokenizer tables.",
     "richText": '{"root":{"children":[]}}', "context": {"fileSelections": []}},
    {"bubbleId": "20d4-think", "type": 2, "createdAt": "2026-10-27T10:00:02.500Z", "text": "",
     "thinking": {"text": "The tables are rebuilt per query; build them once.",
                  "signature": "FAKE-SIGNATURE-DO-NOT-INGEST"}},
    {"bubbleId": "31e6-read", "type": 2, "createdAt": "2026-10-27T10:00:03.000Z", "text": "",
     "toolFormerData": tool("read_file", "completed", {"target_file": "src/tokenize.ts"},
                            {"contents": "export function tables() { return build(); }"}, 5)},
    {"bubbleId": "42f8-test", "type": 2, "createdAt": "2026-10-27T10:00:09.000Z", "text": "",
     "toolFormerData": tool("run_terminal_cmd", "completed", {"command": "npm test -- tokenize"},
                            {"output": "FAIL test/tokenize.test.ts: stale cache", "exitCode": 1}, 15)},
    {"bubbleId": "53a0-edit", "type": 2, "createdAt": "2026-10-27T10:00:12.000Z", "text": "",
     "toolFormerData": tool("edit_file", "error", {"target_file": "src/tokenize.ts"}, None, 38)},
    {"bubbleId": "64b2-answer", "type": 2, "createdAt": "2026-10-27T10:00:20.000Z",
     "text": "The tables are now memoised in `tables()`; the tokenize tests pass.",
     "thinking": {"text": "Memoise and clear the cache on config reload."},
     "tokenCount": {"inputTokens": 9120, "outputTokens": 210}},
    {"bubbleId": "a7c4-user", "type": 1, "createdAt": "2026-10-27T10:04:00.000Z",
     "text": "Run the benchmark too."},
    {"bubbleId": "b8d6-bench", "type": 2, "createdAt": "2026-10-27T10:04:03.000Z", "text": "",
     "toolFormerData": tool("run_terminal_cmd", "loading", {"command": "npm run bench"},
                            {"output": "warming up"}, 15)},
]  # fmt: skip
UNNAMED_BUBBLES = [
    {"bubbleId": "c1-user", "type": 1, "createdAt": 1793005200000,
     "text": "为什么 wiki 的搜索结果里日文标题排在最后？"},
    {"bubbleId": "c2-answer", "type": 2, "createdAt": 1793005206000,
     "text": "排序用了字节序。改成 `Intl.Collator('ja')` 后，「検索」会按读音排列。"},
]  # fmt: skip
INLINE_BUBBLES = [
    {"bubbleId": "i1-user", "type": 1, "text": "Explain how the ranking score is computed."},
    {"bubbleId": "i2-answer", "type": 2, "text": "BM25 over title and body, title weighted 2x."},
]  # fmt: skip


def composer(
    cid: str, name: str, created: int, bubbles: list[dict[str, Any]], **extra: object
) -> dict[str, Any]:
    found = {"_v": 10, "composerId": cid, "name": name, "createdAt": created,
             "lastUpdatedAt": created + 240_000, "status": "completed", "text": "", "richText": "",
             "fullConversationHeadersOnly": [{"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles],
             "blobEncryptionKey": "FAKE-KEY-SAMPLE-DO-NOT-INGEST",
             "speculativeSummarizationEncryptionKey": "FAKE-SUMMARY-KEY-DO-NOT-INGEST"}  # fmt: skip
    found.update(extra)
    return found


def build_global(home: Path) -> None:
    db = fresh(home / IDE / "globalStorage/state.vscdb", KV_SCHEMA)
    for key, value in (
        ("cursorAuth/accessToken", "FAKE-ACCESS-TOKEN-DO-NOT-INGEST"),
        ("cursorAuth/refreshToken", "FAKE-REFRESH-TOKEN-DO-NOT-INGEST"),
        ('secret://{"extensionId":"mcp","key":"github"}', "FAKE-MCP-TOKEN-DO-NOT-INGEST"),
        ("workbench.colorTheme", "Cursor Dark"),
    ):
        db.execute("INSERT INTO ItemTable VALUES (?, ?)", (key, value))
    chats = [
        (composer(COMPOSER, "Cache the tokenizer tables", 1793001600000, COMPOSER_BUBBLES,
                  unifiedMode="agent", modelConfig={"modelName": "claude-4.5-sonnet"},
                  workspaceIdentifier={"id": "b7e1c0d2", "uri": {"fsPath": TIDE, "external": f"file://{TIDE}"}}),
         COMPOSER_BUBBLES),
        (composer(UNNAMED, "", 1793005200000, UNNAMED_BUBBLES, unifiedMode="chat"), UNNAMED_BUBBLES),
        (composer(DRAFT, "", 1793008800000, [], text="draft: rename tide to ebb"), []),
    ]  # fmt: skip
    for data, bubbles in chats:
        cid = data["composerId"]
        db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{cid}", dump(data)))
        for bubble in bubbles:
            key = f"bubbleId:{cid}:{bubble['bubbleId']}"
            db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, dump({"_v": 3, **bubble})))
    inline = {"_v": 2, "composerId": INLINE, "name": "Explain the ranking formula",
              "createdAt": 1767312000000, "conversation": INLINE_BUBBLES}  # fmt: skip
    db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{INLINE}", dump(inline)))
    for key, value in (
        (f"bubbleId:{COMPOSER}:9e0f-null", "null"),
        (f"checkpointId:{COMPOSER}:31e6-read", dump({"files": []})),
        (f"messageRequestContext:{COMPOSER}:f1c2-user", dump({"terminalFiles": []})),
    ):
        db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, value))
    db.commit()
    db.close()


def build_workspace(
    home: Path, folder: str, composers: list[str], tabs: list[dict[str, Any]]
) -> None:
    directory = home / IDE / "workspaceStorage" / hashlib.md5(folder.encode()).hexdigest()
    db = fresh(directory / "state.vscdb", KV_SCHEMA)
    index = {"allComposers": [{"type": "head", "composerId": cid, "name": "", "lastUpdatedAt": 1}
                              for cid in composers],
             "selectedComposerIds": composers[:1]}  # fmt: skip
    db.execute("INSERT INTO ItemTable VALUES (?, ?)", ("composer.composerData", dump(index)))
    db.execute("INSERT INTO ItemTable VALUES (?, ?)", ("aiService.prompts", "FAKE-PROMPT-HISTORY"))
    if tabs:
        chat = dump({"tabs": tabs})
        db.execute(
            "INSERT INTO ItemTable VALUES (?, ?)",
            ("workbench.panel.aichat.view.aichat.chatdata", chat),
        )
    db.commit()
    db.close()


LEGACY_TABS = [
    {"tabId": "tab-6a1f", "chatTitle": "Why is the index stale?", "lastSendTime": 1767225600000,
     "bubbles": [{"type": "user", "id": "lq-1", "text": "Why does the index miss yesterday's notes?",
                  "selections": [{"text": "FAKE-SELECTION-NOT-READ"}]},
                 {"type": "ai", "id": "lq-2", "rawText": "The watcher ignores files renamed while it sleeps."}]},
]  # fmt: skip


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    return varint((number << 3) | 2) + varint(len(payload)) + payload


def build_cli(home: Path, cwd: str, agent: str, name: str, messages: list[dict[str, Any]]) -> None:
    folder = home / ".cursor/chats" / hashlib.md5(cwd.encode()).hexdigest() / agent
    db = fresh(folder / "store.db", CLI_SCHEMA)
    ids = []
    for message in messages:
        data = dump(message).encode()
        ids.append(hashlib.sha256(data).hexdigest())
        db.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (ids[-1], data))
    roots = []
    for count in (2, len(ids)):  # a turn's root, then the latest
        root = b"".join(field(1, bytes.fromhex(i)) for i in ids[:count]) + field(
            9, f"file://{cwd}".encode()
        )
        roots.append(hashlib.sha256(root).hexdigest())
        db.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (roots[-1], root))
    meta = {"agentId": agent, "latestRootBlobId": roots[-1], "name": name, "mode": "default",
            "createdAt": 1793100000000 if agent == AGENT else 1793110000000, "lastUsedModel": "gpt-5"}  # fmt: skip
    db.execute("INSERT INTO meta VALUES (?, ?)", ("0", dump(meta).encode().hex()))
    db.commit()
    db.close()


FIRST_QUERY = (
    f"<user_info>\nOS Version: linux\nWorkspace Path: {TIDE}\n</user_info>\n"
    "<user_query>\nStream search results as NDJSON instead of one array.\n</user_query>"
)
CLI_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are an agent in the Cursor CLI. (sample)"},
    {"role": "user", "content": [{"type": "text", "text": FIRST_QUERY}]},
    {"role": "assistant", "content": [
        {"type": "text", "text": "I'll switch the handler to a stream."},
        {"type": "tool-call", "toolCallId": "tc-1", "toolName": "Shell", "args": {"command": "npm test -- stream"}}]},
    {"role": "tool", "content": [
        {"type": "tool-result", "toolCallId": "tc-1", "toolName": "Shell",
         "result": "1 failing: expected newline", "isError": True}]},
    {"role": "assistant", "content": [
        {"type": "reasoning", "text": "Each object needs a trailing newline."},
        {"type": "text", "text": "Fixed: every result line ends with a newline."}]},
]  # fmt: skip
CLI_WIKI_MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": "<user_query>\n给 wiki 加全文搜索的高亮。\n</user_query>"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "ハイライトは `<mark>` で囲みました。"}]},
]  # fmt: skip


def build(root: Path) -> Path:
    """The databases, built under `root` (a copy of this folder standing for a home)."""
    build_global(root)
    build_workspace(root, TIDE, [COMPOSER, DRAFT, INLINE], LEGACY_TABS)
    build_workspace(root, WIKI, [UNNAMED], [])
    build_cli(root, TIDE, AGENT, "Stream search results", CLI_MESSAGES)
    build_cli(root, WIKI, AGENT_WIKI, "New Agent", CLI_WIKI_MESSAGES)
    return root


def sample_home(target: Path) -> Path:
    """The text files of this folder copied to `target`, and the databases built there."""
    ignore = shutil.ignore_patterns("*.py", "__pycache__")
    shutil.copytree(HERE, target, dirs_exist_ok=True, ignore=ignore)
    return build(target)


if __name__ == "__main__":
    print(sample_home(Path(sys.argv[1])))
