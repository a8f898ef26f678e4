"""A deterministic generator of realistic Claude Code and Codex session logs.

The demo (`origin run` on a machine without agent logs) and the benchmarks need a corpus that looks like a heavy user's agent home (so Origin's real
parsers ingest it unchanged) yet is reproducible byte for byte from a seed, and large
(1M events) without taking longer to make than the benchmarks take to run. Text is assembled
from precomputed pools (phrases, code lines, log lines) plus fresh Zipfian draws, which keeps
the vocabulary's long tail without generating every word one at a time.

Alongside the logs it writes ``events.jsonl.zst`` (concatenated zstd frames, one per session):
one orjson array per event, ``[id, text, source, project, session, kind, role, time_ms]``, exactly
what Origin's parsers produce from the same lines (a test holds the two together), so baselines
(FTS5, grep) can load events without re-parsing:

- Claude Code writes one content block per line, so an event id is ``claude-code:<uuid>``; the
  id-less ``permission-mode`` / ``ai-title`` lines are ``claude-code:<sessionId>:<type>:<sha256
  of the line, 16 hex>`` and take the time of the last timestamped line (0 at the file's start);
  a resumed session re-emits them byte for byte, which collapses into the same event.
- Codex events are ``codex:<threadId>:L<n>``, n the 1-based line in the rollout: session_meta,
  turn_context, every response_item and thread_name_updated; the event_msg mirrors and
  telemetry lines are written but are not events.
- Text: message text; ``<tool name> <compact JSON input>`` for a call; the output for a result
  (``[error] `` before an ``is_error`` one, ``[error: exit code N] `` before a failed Codex
  ``shell`` output, which is unwrapped from its ``{"output": ...}`` JSON); one-line summaries for
  bookkeeping (``permission-mode: plan``, ``turn: model ...``).
"""

from __future__ import annotations

import base64
import calendar
import functools
import hashlib
import io
import itertools
import math
import multiprocessing
import os
import random
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson
import zstandard

GENERATOR_VERSION = "3"

#: Sessions start inside this window (UTC), so output never depends on today's date.
BASE_MS = calendar.timegm((2026, 9, 1, 0, 0, 0)) * 1000
END_MS = calendar.timegm((2026, 11, 29, 0, 0, 0)) * 1000

MAX_TEXT = 20_000
EVENTS_FILE = "events.jsonl.zst"
INFO_FILE = "corpus.json"

EventRow = tuple[str, str, str, str, str, str, str, int]


def _words(text: str) -> list[str]:
    return text.split()


# --------------------------------------------------------------------------------------------
# Word lists. Real words at the head of the Zipfian ranking, so common-word queries behave
# like real ones (stop-word-ish terms with huge posting lists).
# --------------------------------------------------------------------------------------------

_EN_HEAD = _words(
    """
the to and of a in is it that for this with on not be we you i are as have but if can from
at or so an was all will by my do there it's what should then just one when which now about
out up they more also need use like new would get make no only into some these than other
first see because still same how here after where any let time could before does over back
why each way think sure both well after again already right instead without look two done
since while even last might must those much very really through
"""
)

_PROG_HEAD = _words(
    """
error test file function code run fix config server request build data value type user line
return change update add check call path module version method string list log output input
class import package install debug result status message event session query database table
key index cache token client handler route api http json parse format command script default
option field object array map timeout connection deploy commit branch merge diff patch
review lint compile bundle shell variable argument parameter interface component state
render page template style stream buffer retry limit offset batch worker queue job task
thread process memory disk network port host container image release migration schema column
row setup fixture mock assert expect
"""
)

_MID_WORDS = _words(
    """
able above accept access account across action active actual adapter address admin advance
affect agent ahead alert align allow alone along alpha alternative amount analysis anchor
annotation answer apart append apply approach approve area around arrive aside asset async
attach attempt attribute audit author auto available average avoid await aware backend
backoff backup badge balance bare base basic batching beacon become begin behavior behind
below benchmark best beta better between beyond binary bind bit blank block blob body
boolean boot border bottom bound boundary box brace bracket break bridge brief broken
browser bucket budget bug bulk button byte bytes calendar callback cancel candidate capacity
capture card care careful carry case catch cause cell center certain certificate chain
chance channel chapter char character chart cheap checksum child choice choose chunk circle
claim clean clear click clock clone close closure cloud cluster coerce cold collect
collection color combine comment common compare compat complete complex compose compress
compute concat concern concurrent condition conflict connect consider consistent console
constant constraint consume contain content context continue contract control convert cookie
copy core correct cost count counter coverage cover crash create credential critical cron
cross crypto current cursor custom cycle daemon daily dashboard date deadline deadlock
decide decimal declare decode decorator deep define delay delete delta demo deny depend
dependency deprecated depth describe design destroy detail detect develop device dialog
dictionary different digest digit direct directory disable discard discover dispatch display
distinct divide docker document domain double download draft drift driver drop dry due dump
duplicate duration dynamic eager early edge edit effect element else email embed emit empty
enable encode encoding end endpoint enforce engine ensure enter entity entry enum
environment equal escape estimate evaluate evict exact example exceed exception exclude
execute exist exit expand expire explain explicit export expose express extend extension
external extra extract factor factory fail failure fallback false fast feature fetch file
filter final find finish fire flag flaky flat float flow flush focus folder follow font
force fork form forward frame framework free freeze fresh front full gap garbage gateway
general generate generic global goal graceful grant graph green grid group guard guess guide
half handle hash header health heap height helper hidden hint history hold home hook
horizontal hot hour html icon idle ignore image immutable implement include increase
increment infer info inherit init initial inline inner insert inside inspect instance
integer integration intent internal interval invalid invoke issue item iterate join keep
kernel kind label language large latency latest launch layer layout lazy lead leak learn
least leave legacy length level library license lifecycle light limiter linear link listen
literal load local locale lock logger logic long loop lower machine main major manage
manifest manual margin mark marker master match matrix maximum measure medium member menu
merge metadata metric middle middleware minimum minor minute mirror miss missing mobile mode
model modify monitor month mount move multiple mutable mutex name native navigate nested
network never next node noise none normal note notice notify null number numeric observe
obvious offline often open operation operator optimize order origin original outer overflow
override owner pack padding pair panel panic parallel parent parser partial pass password
pause payload peak pending percent perform period permission persist phase pick pipe
pipeline pixel place plain plan platform plugin pointer policy poll pool popup position
possible post power prefix prepare present preview previous primary print priority private
probe problem produce profile program progress project promise prompt proof property protect
protocol provide proxy public publish pull purge push quick quota quote race raise random
range rate raw reach read ready real reason rebuild receive recent record recover recursive
reduce refactor reference refresh region register regex registry reject relative reload
remote remove rename render repeat replace reply report repo request require reset resolve
resource respond response rest restart restore restrict reuse revert rewrite root rotate
round router rule runtime safe sample save scale scan schedule scope score screen scroll
search second secret section secure select self send sense separate sequence serial
serialize serve service set settle shape share short signal signature silent simple single
size skip slice slot slow small snapshot socket soft source space span spawn special split
stable stack stage stale standard start startup static step stop storage store strict strip
struct structure stub style submit subscribe success suffix suggest summary supply support
suspend swap switch symbol sync syntax system tag target team temp terminal text theme throw
tick ticket tier title toggle tool top topic total trace track trade transaction transform
transport tree trigger trim true trust tuple turn unique unit unknown unlock unpack unsafe
unused update upgrade upload upper usage utility valid validate vector vendor verbose verify
vertical view virtual visible volume wait warm warning watch weak week weight while width
window wrap write wrong yaml yield zero zone
"""
)

_VERBS = _words(
    """
get set load save parse build fetch create update delete validate resolve handle compute
render sync flush apply merge normalize encode decode ensure refresh schedule dispatch read
write open close start stop check find list register emit collect
"""
)

_NOUNS = _words(
    """
user account invoice order payment session token config cache request response handler
client server queue job task event message record entry item batch report schedule rule
policy profile settings metric trace span route endpoint schema table column index query
cursor page result status error header payload buffer stream chunk file path node graph tree
worker pool lock retry limit window
"""
)

_SUFFIXES = _words(
    """
Manager Service Repository Handler Client Config Error Factory Builder Store Cache Parser
Registry Provider Adapter Controller Worker Resolver Validator Serializer
"""
)

_PROJECT_PREFIX = _words(
    """
billing notes demo auth search payments inventory chat media analytics ledger scheduler
gateway crawler mailer reports catalog checkout ingest metrics
"""
)
_PROJECT_SUFFIX = ["service", "app", "api", "web", "cli", "worker", "sdk", "ui", "core", "pipeline"]

# CJK: real common words, used inside sentence templates.
ZH_NOUNS = _words(
    """
数据库 服务器 配置 测试 错误 日志 接口 用户 文件 函数 缓存 请求 响应 版本 依赖 模块 代码 分支 权限 参数 数据 字段 索引 查询 事务 连接 线程 进程 内存 磁盘
网络 端口 证书 密钥 环境变量 脚本 容器 镜像 集群 节点 任务 队列 消息 事件 会话 页面 组件 路由 样式 表格 报告 文档 注释 类型 对象 数组 字符串 变量 常量 异常
断言 覆盖率 性能 迁移 部署 编译 构建 发布 回滚 监控 告警 备份 同步 超时 重试 并发 死锁 内存泄漏 单元测试 集成测试
"""
)
ZH_VERBS = _words(
    """
修复 检查 运行 更新 删除 添加 修改 重构 优化 部署 迁移 测试 调试 排查 确认 回滚 合并 提交 重启 配置 安装 升级 生成 导出 导入 解析 验证 清理 拆分 实现
"""
)
ZH_ADJS = _words(
    """
很慢 正常 失败 成功 太大 不对 有问题 没问题 稳定 不稳定 过期 为空 重复 缺失
"""
)
ZH_CONJ = ["但是", "所以", "因为", "然后", "如果", "另外", "不过", "而且"]

JA_NOUNS = _words(
    """
データベース 設定 テスト エラー サーバー ログ ファイル 関数 問題 性能 キャッシュ リクエスト レスポンス バージョン 依存関係 モジュール コード ブランチ 権限 ユーザー
パラメータ データ フィールド インデックス クエリ トランザクション 接続 スレッド プロセス メモリ ディスク ネットワーク ポート 証明書 環境変数 スクリプト コンテナ
イメージ クラスタ ノード タスク キュー メッセージ イベント セッション ページ コンポーネント ルーティング ドキュメント コメント オブジェクト 配列 文字列 変数 例外
カバレッジ 移行 デプロイ ビルド リリース 監視 バックアップ 同期 タイムアウト リトライ
"""
)
JA_VERBS = _words(
    """
修正 確認 実行 更新 削除 追加 変更 リファクタリング 最適化 デプロイ 移行 テスト デバッグ 調査 マージ コミット 再起動 設定 インストール アップグレード 生成 解析
検証 実装
"""
)
JA_ADJS = ["遅い", "正常", "大きすぎる", "古い", "不安定", "おかしい", "空"]

KO_NOUNS = _words(
    """
데이터베이스 설정 테스트 오류 서버 로그 파일 함수 문제 성능 캐시 요청 응답 버전 배포 빌드 코드 브랜치 권한 사용자 마이그레이션 인덱스 쿼리 연결 메모리
"""
)
KO_VERBS = ["수정", "확인", "실행", "업데이트", "삭제", "추가", "변경", "배포", "검증", "구현"]

_MODELS_CLAUDE = ("claude-opus-4-5", "claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5")
_CLAUDE_VERSIONS = ("2.1.198", "2.1.212", "2.1.230", "2.1.241", "2.1.241")
_CODEX_VERSIONS = ("0.124.0", "0.128.0", "0.131.0", "0.131.0")
_LANG_DECK = ["en"] * 27 + ["zh"] * 7 + ["ja"] * 5 + ["ko"] * 1

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# --------------------------------------------------------------------------------------------
# Vocabulary and per-project material, built once per seed.
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Vocab:
    """Words by rank (0 = most frequent) with cumulative Zipf weights for ``random.choices``."""

    words: list[str]
    cum: list[float]
    head_end: int = 200
    mid_end: int = 3000

    def rank(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}


def _pseudo_words(rng: random.Random, n: int, taken: set[str]) -> list[str]:
    onsets = _words(
        "b br c ch cl d dr f fl g gr h j k l m n p pl pr qu r s sh sk sl st t th tr v w z"
    )
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
    codas = ["", "", "", "n", "r", "s", "l", "m", "x", "nd", "rt", "st", "ck"]
    out: list[str] = []
    pick = _picker(rng)
    while len(out) < n:
        word = "".join(pick(onsets) + pick(vowels) + pick(codas) for _ in range(pick((2, 2, 3))))
        if word not in taken and len(word) >= 4:
            taken.add(word)
            out.append(word)
    return out


@functools.lru_cache(maxsize=2)
def build_vocab(seed: int = 42, size: int = 150_000) -> Vocab:
    """The ranked vocabulary: real English and programming words first, pseudo-words after."""
    rng = random.Random(f"vocab:{seed}")
    ranked: list[str] = []
    seen: set[str] = set()
    for word in itertools.chain.from_iterable(itertools.zip_longest(_EN_HEAD, _PROG_HEAD)):
        if word and word not in seen:
            seen.add(word)
            ranked.append(word)
    mid = [w for w in _MID_WORDS + _NOUNS + _VERBS if w not in seen]
    mid = list(dict.fromkeys(mid))
    rng.shuffle(mid)
    seen.update(mid)
    ranked += mid
    # The mid bucket keeps going with pseudo-words so that ranks 200..3000 are all "mid".
    ranked += _pseudo_words(rng, size - len(ranked), seen)
    cum = list(itertools.accumulate(1.0 / (r + 2.7) ** 1.07 for r in range(len(ranked))))
    return Vocab(ranked, cum)


@dataclass(slots=True)
class Project:
    """One fake repository: its name, identifiers and files, so its sessions share vocabulary."""

    name: str
    cwd: str
    slug: str
    lang: str
    camel: list[str]
    snake: list[str]
    pascal: list[str]
    dotted: list[str]
    paths: list[str]
    errors: list[str]
    envs: list[str]
    hashes: list[str]
    tests: list[str]
    branches: list[str]
    repo_url: str
    files: list[tuple[str, list[str]]] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    test_lines: list[str] = field(default_factory=list)
    tracebacks: list[str] = field(default_factory=list)

    @property
    def idents(self) -> list[str]:
        return self.camel + self.snake + self.pascal + self.dotted


def _picker(rng: random.Random) -> Callable[[list | tuple], Any]:
    """``rng.choice`` without its rejection sampling: several times faster, still seeded."""
    r = rng.random

    def pick(seq: list | tuple) -> Any:
        return seq[int(r() * len(seq))]

    return pick


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def _slug(cwd: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)


def _build_project(rng: random.Random, name: str, tail: list[str], phrases: list[str]) -> Project:
    lang = rng.choice(("py", "py", "ts"))
    own = [rng.choice(tail) for _ in range(6)]  # project-specific rare nouns
    nouns = rng.sample(_NOUNS, 14) + own
    pkg = name.replace("-", "_")

    def noun() -> str:
        return rng.choice(nouns)

    camel = list(
        dict.fromkeys(
            rng.choice(_VERBS) + _cap(noun()) + (_cap(noun()) if rng.random() < 0.5 else "")
            for _ in range(70)
        )
    )
    snake = list(
        dict.fromkeys(
            f"{rng.choice(_VERBS)}_{noun()}" + (f"_{noun()}" if rng.random() < 0.5 else "")
            for _ in range(70)
        )
    )
    pascal = list(dict.fromkeys(_cap(noun()) + rng.choice(_SUFFIXES) for _ in range(30)))
    dotted = list(
        dict.fromkeys(
            f"{pkg}.{noun()}s.{noun()}" if rng.random() < 0.5 else f"{noun()}.{noun()}"
            for _ in range(30)
        )
    )
    ext = ".py" if lang == "py" else ".ts"
    paths = list(
        dict.fromkeys(
            f"src/{noun()}/{rng.choice(snake) if lang == 'py' else rng.choice(camel)}{ext}"
            for _ in range(35)
        )
    )
    tests = list(
        dict.fromkeys(
            (
                f"tests/test_{noun()}.py::test_{rng.choice(snake)}"
                if lang == "py"
                else f"test/{noun()}.test.ts > {rng.choice(phrases)}"
            )
            for _ in range(40)
        )
    )
    keys = [f"{noun()}_id" for _ in range(6)] + [noun() for _ in range(4)]
    errors: list[str] = []
    for _ in range(24):
        k = rng.randrange(6)
        if k == 0:
            errors.append(f"KeyError: '{rng.choice(keys)}'")
        elif k == 1:
            errors.append(
                f"TypeError: {rng.choice(snake)}() missing 1 required positional argument: '{noun()}'"
            )
        elif k == 2:
            errors.append(
                f"AttributeError: '{rng.choice(pascal)}' object has no attribute '{rng.choice(snake)}'"
            )
        elif k == 3:
            errors.append(f"ValueError: invalid {noun()}: {rng.randrange(1000)}")
        elif k == 4:
            errors.append(
                f"TypeError: Cannot read properties of undefined (reading '{noun()}{_cap(noun())}')"
            )
        else:
            errors.append(
                f"Error: connect ECONNREFUSED 127.0.0.1:{rng.choice((5432, 6379, 8080, 3000, 9200))}"
            )
    envs = [
        f"{pkg.upper()}_{noun().upper()}_{rng.choice(('URL', 'TOKEN', 'TIMEOUT', 'PATH'))}"
        for _ in range(8)
    ]
    hashes = [f"{rng.getrandbits(160):040x}" for _ in range(40)]
    branches = [
        "main",
        "main",
        f"feat/{noun()}-{noun()}",
        f"fix/{rng.choice(snake).replace('_', '-')}",
        f"chore/{noun()}",
    ]
    cwd = f"/home/dev/{name}"
    project = Project(
        name=name,
        cwd=cwd,
        slug=_slug(cwd),
        lang=lang,
        camel=camel,
        snake=snake,
        pascal=pascal,
        dotted=dotted,
        paths=paths,
        errors=errors,
        envs=envs,
        hashes=hashes,
        tests=tests,
        branches=branches,
        repo_url=f"git@github.com:example/{name}.git",
    )
    code = _code_lines(rng, project, phrases, keys)
    for path in paths:
        n = int(rng.lognormvariate(math.log(120), 0.8)) + 8
        start = rng.randrange(len(code))
        body = [code[(start + i) % len(code)] for i in range(min(n, 900))]
        project.files.append((path, body))
    project.log_lines = _log_lines(rng, project, phrases)
    project.test_lines = _test_lines(rng, project)
    project.tracebacks = [_traceback(rng, project) for _ in range(16)]
    return project


def _code_lines(rng: random.Random, p: Project, phrases: list[str], keys: list[str]) -> list[str]:
    c = rng.choice
    if p.lang == "py":
        templates: list[Callable[[], str]] = [
            lambda: f"def {c(p.snake)}({c(keys)}, {c(keys)}=None):",
            lambda: f"    {c(keys)} = {c(p.snake)}({c(keys)})",
            lambda: f"    if {c(keys)} is None:",
            lambda: (
                f'        raise {c(("ValueError", "KeyError", "RuntimeError"))}("{c(phrases)}")'
            ),
            lambda: f"    return {c(p.snake)}({c(keys)}, timeout={rng.randrange(1, 120)})",
            lambda: f"class {c(p.pascal)}({c(p.pascal)}):",
            lambda: f'    """{_cap(c(phrases))}."""',
            lambda: f"from {c(p.dotted)} import {c(p.pascal)}, {c(p.snake)}",
            lambda: f"    for {c(keys)} in self.{c(p.snake)}():",
            lambda: f'        self.{c(keys)} = payload.get("{c(keys)}", {rng.randrange(100)})',
            lambda: f'    logger.info("{c(phrases)} %s", {c(keys)})',
            lambda: f"# {_cap(c(phrases))}",
            lambda: f"    assert {c(p.snake)}({c(keys)}) == {rng.randrange(100)}",
            lambda: f"    await self.{c(p.snake)}({c(keys)}, retries={rng.randrange(1, 6)})",
            lambda: f"    {c(keys)}: {c(p.pascal)} = field(default_factory=dict)",
            lambda: "",
        ]
    else:
        templates = [
            lambda: (
                f"export async function {c(p.camel)}({c(keys)}: {c(p.pascal)}): Promise<{c(p.pascal)}> {{"
            ),
            lambda: f"  const {c(p.camel)} = await {c(p.camel)}({c(keys)});",
            lambda: f"  if (!{c(keys)}) throw new Error(`{c(phrases)}`);",
            lambda: f"  return {{ ...{c(keys)}, count: {rng.randrange(100)} }};",
            lambda: "}",
            lambda: f"import {{ {c(p.pascal)}, {c(p.camel)} }} from './{c(p.camel)}';",
            lambda: f"export interface {c(p.pascal)} {{",
            lambda: f"  {c(keys)}: {c(('string', 'number', 'boolean', 'Date'))};",
            lambda: f"// {_cap(c(phrases))}",
            lambda: f"  logger.debug('{c(phrases)}', {{ {c(keys)} }});",
            lambda: f"describe('{c(p.camel)}', () => {{",
            lambda: f"  it('{c(phrases)}', async () => {{",
            lambda: f"    expect({c(p.camel)}({c(keys)})).toBe({rng.randrange(100)});",
            lambda: "",
        ]
    return [c(templates)() for _ in range(1500)]


def _log_lines(rng: random.Random, p: Project, phrases: list[str]) -> list[str]:
    out = []
    for _ in range(600):
        ms = BASE_MS + rng.randrange(END_MS - BASE_MS)
        level = rng.choice(("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"))
        msg = rng.choice(phrases)
        extra = rng.random()
        if level == "ERROR" and extra < 0.7:
            msg = f"{msg}: {rng.choice(p.errors)}"
        elif extra < 0.3:
            msg = f"{msg} {rng.choice(p.idents)}={rng.randrange(10000)}"
        out.append(f"{_iso(ms)} {level:<5} {rng.choice(p.dotted)} {msg}")
    return out


def _test_lines(rng: random.Random, p: Project) -> list[str]:
    out = []
    for t in p.tests:
        for _ in range(3):
            ok = rng.random() < 0.9
            if p.lang == "py":
                out.append(f"{t} {'PASSED' if ok else 'FAILED'} [{rng.randrange(1, 100):>3}%]")
            else:
                out.append(f" {'✓' if ok else '×'} {t} ({rng.randrange(1, 400)} ms)")
    return out


def _traceback(rng: random.Random, p: Project) -> str:
    lines = ["Traceback (most recent call last):"]
    for _ in range(rng.randrange(3, 12)):
        path, body = rng.choice(p.files)
        lines.append(
            f'  File "{p.cwd}/{path}", line {rng.randrange(1, 400)}, in {rng.choice(p.snake)}'
        )
        lines.append(f"    {rng.choice(body).strip() or 'pass'}")
    lines.append(rng.choice(p.errors))
    return "\n".join(lines)


@dataclass(slots=True)
class Context:
    """Everything the per-session generators share; built once per seed, inherited by workers."""

    seed: int
    vocab: Vocab
    phrases: list[str]
    projects: list[Project]
    project_weights: list[float]
    base_instructions: str
    zh: list[str]
    ja: list[str]
    ko: list[str]


def _weighted(words: list[str], top: int = 24) -> list[str]:
    """Repeat earlier words more, so a uniform ``choice`` gives a Zipf-like pick."""
    return [w for i, w in enumerate(words) for _ in range(max(1, top // (i + 1)))]


@functools.lru_cache(maxsize=2)
def build_context(seed: int = 42) -> Context:
    """The shared material for one seed: vocabulary, phrase pools and 50 projects."""
    vocab = build_vocab(seed)
    rng = random.Random(f"context:{seed}")
    draws = rng.choices(vocab.words, cum_weights=vocab.cum, k=240_000)
    phrases: list[str] = []
    i = 0
    while i < len(draws):
        k = rng.choice((2, 3, 3, 4, 5))
        phrases.append(" ".join(draws[i : i + k]))
        i += k
    tail = vocab.words[vocab.mid_end :]
    names = [f"{a}-{b}" for a in _PROJECT_PREFIX for b in _PROJECT_SUFFIX]
    rng.shuffle(names)
    names = sorted(names[:49]) + ["demo-app"]
    rng.shuffle(names)
    projects = [_build_project(rng, name, tail, phrases) for name in names]
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(projects))]
    base = "\n\n".join(_cap(" ".join(rng.choices(phrases, k=12))) + "." for _ in range(40))
    return Context(
        seed=seed,
        vocab=vocab,
        phrases=phrases,
        projects=projects,
        project_weights=weights,
        base_instructions="You are Codex, a coding agent. " + base,
        zh=_weighted(ZH_NOUNS),
        ja=_weighted(JA_NOUNS),
        ko=_weighted(KO_NOUNS),
    )


# --------------------------------------------------------------------------------------------
# Small fast formatters.
# --------------------------------------------------------------------------------------------


_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_WORD_CHAR = re.compile(r"\w")


def mostly_cjk(text: str) -> bool:
    """At least half of the text's word characters are Han, kana or Hangul."""
    return 2 * len(_CJK_CHAR.findall(text)) >= len(_WORD_CHAR.findall(text)) > 0


def _iso(ms: int) -> str:
    s, r = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + f".{r:03d}Z"


def _uuid4(rng: random.Random) -> str:
    value = (rng.getrandbits(128) & ~(0xF << 76) & ~(0x3 << 62)) | (4 << 76) | (2 << 62)
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _uuid7(rng: random.Random, ms: int) -> str:
    value = (ms << 80) | (7 << 76) | (rng.getrandbits(12) << 64) | (2 << 62) | rng.getrandbits(62)
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _b62(rng: random.Random, n: int) -> str:
    return "".join(rng.choices(_B62, k=n))


def _lognorm_len(rng: random.Random, median: float, sigma: float, cap: int = 20_000) -> int:
    return min(cap, max(8, int(rng.lognormvariate(math.log(median), sigma))))


# --------------------------------------------------------------------------------------------
# Text for one session.
# --------------------------------------------------------------------------------------------


class _Text:
    """Text makers bound to one session's rng, project and language."""

    def __init__(self, ctx: Context, rng: random.Random, project: Project, lang: str) -> None:
        self.ctx = ctx
        self.rng = rng
        self.p = project
        self.lang = lang
        self.fresh: list[str] = []
        self.fi = 0
        self.idents = project.idents
        self.pick = _picker(rng)
        if lang == "zh":
            self.cjk_sentence = self._zh
        elif lang == "ja":
            self.cjk_sentence = self._ja
        else:
            self.cjk_sentence = self._ko

    # -- words ----------------------------------------------------------------------------
    def w(self) -> str:
        """A fresh Zipfian word: the source of the long tail the phrase pool cannot hold."""
        if self.fi >= len(self.fresh):
            v = self.ctx.vocab
            self.fresh = self.rng.choices(v.words, cum_weights=v.cum, k=2048)
            self.fi = 0
        self.fi += 1
        return self.fresh[self.fi - 1]

    def ident(self) -> str:
        return self.pick(self.idents)

    # -- English --------------------------------------------------------------------------
    def en_sentence(self) -> str:
        rng = self.rng
        c = self.pick
        p = self.p
        r = rng.random()
        if r < 0.32:
            k = rng.randrange(9)
            if k == 0:
                s = f"I'll check `{self.ident()}` in {c(p.paths)} first"
            elif k == 1:
                s = f"The test `{c(p.tests)}` fails with `{c(p.errors)}`"
            elif k == 2:
                s = f"Let me look at how `{self.ident()}` handles the {self.w()} {c(self.ctx.phrases)}"
            elif k == 3:
                s = f"Found it: `{c(p.camel + p.snake)}` is called from {c(p.paths)} but the {self.w()} is never set"
            elif k == 4:
                s = f"This happens because `{c(p.dotted)}` returns None when the {self.w()} {self.w()} is missing"
            elif k == 5:
                s = f"Updated {c(p.paths)} so that `{self.ident()}` {c(self.ctx.phrases)}"
            elif k == 6:
                s = f"Commit {c(p.hashes)[:7]} {c(self.ctx.phrases)}"
            elif k == 7:
                s = f"Set {c(p.envs)} before running `{self.ident()}`, {c(self.ctx.phrases)}"
            else:
                s = f"{_cap(c(self.ctx.phrases))} {self.w()} in `{self.ident()}`"
        else:
            parts = rng.choices(self.ctx.phrases, k=c((1, 2, 2, 3, 3, 4)))
            if r < 0.7:
                parts.insert(rng.randrange(len(parts) + 1), self.w())
            s = _cap(" ".join(parts))
        return s + c((".", ".", ".", "?", ":"))

    def en_prose(self, target: int) -> str:
        out: list[str] = []
        n = 0
        while n < target:
            s = self.en_sentence()
            out.append(s)
            n += len(s) + 1
        return " ".join(out)

    # -- CJK ------------------------------------------------------------------------------
    def _zh(self) -> str:
        c = self.pick
        ctx = self.ctx
        # Sentences that quote code are kept rare so that these texts stay mostly CJK.
        k = int(self.rng.random() * 16)
        if k == 0:
            return f"我们需要{c(ZH_VERBS)}{c(ctx.zh)}的{c(ctx.zh)}，{c(ZH_CONJ)}{c(ctx.zh)}{c(ZH_ADJS)}。"
        if k == 1:
            return f"请帮我{c(ZH_VERBS)}一下{c(ctx.zh)}{c(ctx.zh)}。"
        if k == 2:
            return f"{c(ctx.zh)}{c(ctx.zh)}出现了{c(ctx.zh)}，先{c(ZH_VERBS)}{c(ctx.zh)}。"
        if k == 3:
            return f"已经{c(ZH_VERBS)}了{c(ctx.zh)}，现在{c(ctx.zh)}{c(ZH_ADJS)}。"
        if k == 4:
            return f"这个{c(ctx.zh)}在 `{self.ident()}` 里{c(ZH_VERBS)}失败，{c(self.p.errors)}。"
        if k in (5, 7, 9, 11, 13, 15):
            return f"{c(ctx.zh)}的{c(ctx.zh)}{c(ZH_ADJS)}，可能是{c(ctx.zh)}{c(ZH_VERBS)}导致的。"
        return f"{c(ZH_CONJ)}{c(ctx.zh)}和{c(ctx.zh)}都要{c(ZH_VERBS)}，{c(ctx.zh)}{c(ZH_ADJS)}。"

    def _ja(self) -> str:
        c = self.pick
        ctx = self.ctx
        k = int(self.rng.random() * 14)
        if k == 0:
            return f"{c(ctx.ja)}の{c(ctx.ja)}を{c(JA_VERBS)}してください。"
        if k == 1:
            return f"{c(ctx.ja)}で `{c(self.p.errors)}` が発生しました。"
        if k in (2, 6, 9, 12):
            return f"{c(ctx.ja)}の{c(ctx.ja)}が{c(JA_ADJS)}ので、{c(ctx.ja)}を{c(JA_VERBS)}します。"
        if k in (3, 7, 10, 13):
            return f"まず{c(ctx.ja)}を確認して、{c(ctx.ja)}を{c(JA_VERBS)}しました。"
        if k == 4:
            return f"`{self.ident()}` の{c(ctx.ja)}は{c(JA_ADJS)}です。{c(ctx.ja)}も{c(JA_VERBS)}する必要があります。"
        return f"{c(ctx.ja)}と{c(ctx.ja)}の{c(JA_VERBS)}が終わりました。"

    def _ko(self) -> str:
        c = self.pick
        k = self.rng.randrange(3)
        if k == 0:
            return f"{c(KO_NOUNS)}의 {c(KO_NOUNS)}를 {c(KO_VERBS)}해 주세요."
        if k == 1:
            return f"{c(KO_NOUNS)}에서 `{c(self.p.errors)}` 오류가 발생했습니다."
        return f"{c(KO_NOUNS)}와 {c(KO_NOUNS)}를 {c(KO_VERBS)}했습니다."

    def cjk_prose(self, target: int) -> str:
        out: list[str] = []
        n = 0
        while n < target:
            s = self.cjk_sentence()
            out.append(s)
            n += len(s)
        return "".join(out) if self.lang != "ko" else " ".join(out)

    def prose(self, median: float, sigma: float) -> tuple[str, bool]:
        """Prose in the session's language; CJK sessions' texts are ~3x shorter in characters."""
        if self.lang == "en":
            return self.en_prose(_lognorm_len(self.rng, median, sigma, 6000)), False
        return self.cjk_prose(_lognorm_len(self.rng, median / 3, sigma, 3000)), True

    # -- code and tool output -------------------------------------------------------------
    def code_block(self) -> str:
        path, body = self.pick(self.p.files)
        start = self.rng.randrange(len(body))
        n = self.rng.randrange(3, 25)
        lang = "python" if self.p.lang == "py" else "ts"
        return f"```{lang}\n" + "\n".join(body[start : start + n]) + "\n```"

    def file_read(self, numbered: bool) -> tuple[str, str]:
        rng = self.rng
        path, body = self.pick(self.p.files)
        want = _lognorm_len(rng, 30, 1.2, 400)
        start = rng.randrange(max(1, len(body) - want + 1)) if rng.random() < 0.4 else 0
        lines = body[start : start + want]
        if numbered:
            text = "\n".join(f"{start + i + 1:>6}→{line}" for i, line in enumerate(lines))
        else:
            text = "\n".join(lines)
        return path, text[: MAX_TEXT - 200]

    def lines_from(self, pool: list[str], target: int) -> str:
        rng = self.rng
        start = rng.randrange(len(pool))
        out: list[str] = []
        n = 0
        i = start
        while n < target:
            line = pool[i % len(pool)] if rng.random() < 0.7 else self.pick(pool)
            out.append(line)
            n += len(line) + 1
            i += 1
        return "\n".join(out)

    def test_log(self, target: int) -> tuple[str, bool]:
        rng = self.rng
        p = self.p
        failed = rng.random() < 0.35
        body = self.lines_from(p.test_lines, target)
        if p.lang == "py":
            head = (
                "============================= test session starts ==============================\n"
                f"platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0\nrootdir: {p.cwd}\n"
                f"collected {rng.randrange(5, 900)} items\n\n"
            )
            if failed:
                tail = (
                    "\n=================================== FAILURES ===================================\n"
                    + self.pick(p.tracebacks)
                    + f"\n=========================== short test summary info ============================\n"
                    f"FAILED {self.pick(p.tests)} - {self.pick(p.errors)}\n"
                    f"=================== {rng.randrange(1, 5)} failed, {rng.randrange(5, 500)} passed in {rng.random() * 30:.2f}s ==================="
                )
            else:
                tail = f"\n============================= {rng.randrange(5, 900)} passed in {rng.random() * 30:.2f}s ============================="
        else:
            head = f"\n RUN  v2.1.4 {p.cwd}\n\n"
            if failed:
                tail = (
                    f"\n\n FAIL  {self.pick(p.tests)}\nAssertionError: expected {rng.randrange(500)} to be {rng.randrange(500)}\n"
                    f" ❯ {self.pick(p.paths)}:{rng.randrange(1, 300)}:{rng.randrange(1, 60)}\n"
                    f"\n Test Files  1 failed | {rng.randrange(1, 40)} passed\n      Tests  {rng.randrange(1, 4)} failed | {rng.randrange(5, 400)} passed"
                )
            else:
                tail = f"\n\n Test Files  {rng.randrange(1, 40)} passed\n      Tests  {rng.randrange(5, 400)} passed\n   Duration  {rng.random() * 9:.2f}s"
        return head + body + tail, failed

    def grep_output(self, pattern: str, target: int) -> str:
        rng = self.rng
        out: list[str] = []
        n = 0
        while n < target:
            path, body = self.pick(self.p.files)
            i = rng.randrange(len(body))
            line = f"{path}:{i + 1}:{body[i]}"
            out.append(line)
            n += len(line) + 1
        return "\n".join(out)

    def git_output(self) -> str:
        rng = self.rng
        p = self.p
        k = rng.randrange(3)
        if k == 0:
            return "\n".join(
                f"{h[:7]} {self.en_sentence()}" for h in rng.sample(p.hashes, rng.randrange(3, 20))
            )
        if k == 1:
            files = rng.sample(p.paths, min(len(p.paths), rng.randrange(1, 8)))
            return (
                f"On branch {self.pick(p.branches)}\nChanges not staged for commit:\n"
                + "\n".join(f"\tmodified:   {f}" for f in files)
            )
        path, body = self.pick(p.files)
        i = rng.randrange(len(body))
        hunk = body[i : i + rng.randrange(3, 30)]
        return (
            f"diff --git a/{path} b/{path}\nindex {self.pick(p.hashes)[:7]}..{self.pick(p.hashes)[:7]} 100644\n"
            f"--- a/{path}\n+++ b/{path}\n@@ -{i + 1},{len(hunk)} +{i + 1},{len(hunk)} @@\n"
            + "\n".join(self.pick(("+", "-", " ")) + line for line in hunk)
        )

    def command(self) -> tuple[str, str]:
        """A shell command and its output, capped like the longest real outputs seen (~20k)."""
        cmd, out = self._command()
        return cmd, out[: MAX_TEXT - 200]  # room for Codex's exec_command header

    def _command(self) -> tuple[str, str]:
        rng = self.rng
        p = self.p
        k = rng.randrange(10)
        if k < 3:
            mod = self.pick(p.tests).split("::")[0].split(" ")[0]
            cmd = f"pytest -q {mod}" if p.lang == "py" else f"npx vitest run {mod}"
            return cmd, self.test_log(_lognorm_len(rng, 900, 1.3, 19_000))[0]
        if k < 5:
            cmd = self.pick(
                ("git log --oneline -n 20", "git status", f"git diff {self.pick(p.paths)}")
            )
            return cmd, self.git_output()
        if k < 7:
            ident = self.ident()
            return f'rg -n "{ident}" src/', self.grep_output(
                ident, _lognorm_len(rng, 300, 1.2, 12_000)
            )
        if k < 8:
            return (
                f"docker compose logs {p.name} --tail {self.pick((50, 200, 500))}",
                self.lines_from(p.log_lines, _lognorm_len(rng, 1200, 1.2, 19_000)),
            )
        if k < 9:
            return f"python -m {self.pick(p.dotted)}", self.pick(p.tracebacks)
        path = self.pick(p.paths)
        return f"ls -la {path.rsplit('/', 1)[0]}", "\n".join(
            f"-rw-r--r-- 1 dev dev {rng.randrange(200, 40000):>6} Oct {rng.randrange(1, 30):>2} 12:{rng.randrange(60):02d} {q.rsplit('/', 1)[-1]}"
            for q in rng.sample(p.paths, min(len(p.paths), rng.randrange(2, 15)))
        )

    def description(self) -> str:
        if self.lang == "en":
            return _cap(" ".join(self.rng.choices(self.ctx.phrases, k=1)))
        return self.cjk_sentence()

    def patch(self) -> tuple[str, list[str], list[str]]:
        rng = self.rng
        path, body = self.pick(self.p.files)
        i = rng.randrange(len(body))
        old = body[i : i + rng.randrange(1, 6)]
        new = [self.pick(body) for _ in range(rng.randrange(1, 8))]
        return path, old, new


# --------------------------------------------------------------------------------------------
# Sessions.
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Plan:
    source: str
    index: int
    events: int
    project: int
    lang: str
    start_ms: int


@dataclass(slots=True)
class _SessionOut:
    table: bytes  # a zstd frame of table lines
    events: int
    lines: int
    bytes: int
    cjk: int


_CTX: Context | None = None
_OUT: Path | None = None


def _dump(obj: object) -> bytes:
    return orjson.dumps(obj)


class _Session:
    """Shared bookkeeping for one session file: the line buffer, the table rows, the clock."""

    session_id = ""

    def __init__(self, ctx: Context, plan: _Plan, seed: int) -> None:
        self.rng = random.Random(f"{seed}:{plan.source}:{plan.index}")
        self.plan = plan
        self.ctx = ctx
        self.project = ctx.projects[plan.project]
        self.text = _Text(ctx, self.rng, self.project, plan.lang)
        self.pick = self.text.pick
        self.lines: list[bytes] = []
        self.rows: list[bytes] = []
        self.budget = plan.events
        self.now = plan.start_ms
        self.cjk = 0

    def tick(self, lo: float, hi: float) -> int:
        self.now += int(self.rng.uniform(lo, hi) * 1000) + 1
        return self.now

    def row(
        self, eid: str, text: str, kind: str, role: str, cjk: bool, at: int | None = None
    ) -> None:
        when = self.now if at is None else at
        self.rows.append(
            _dump(
                (eid, text, self.plan.source, self.project.name, self.session_id, kind, role, when)
            )
        )
        self.budget -= 1
        if cjk and mostly_cjk(text):
            self.cjk += 1


class _Claude(_Session):
    def __init__(self, ctx: Context, plan: _Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        p = self.project
        pick = self.pick
        self.session_id = _uuid4(self.rng)
        self.parent: str | None = None
        self.last_stamp = 0  # id-less lines take the time of the last timestamped line
        self.model = pick(_MODELS_CLAUDE)
        self.env_head = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": p.cwd,
            "sessionId": self.session_id,
            "version": pick(_CLAUDE_VERSIONS),
            "gitBranch": pick(p.branches),
        }
        self.seen: set[str] = set()
        mode = pick(("default", "acceptEdits", "default", "plan"))
        self.mode_line = _dump(
            {"type": "permission-mode", "permissionMode": mode, "sessionId": self.session_id}
        )
        self.mode_text = f"permission-mode: {mode}"
        self.title_line: bytes | None = None
        self.title_text = ""

    def bookkeeping(self, line: bytes, rtype: str, text: str) -> None:
        """An id-less line; re-emitted byte-identical copies share one id, hence one event."""
        self.lines.append(line)
        eid = f"claude-code:{self.session_id}:{rtype}:{hashlib.sha256(line).hexdigest()[:16]}"
        if eid not in self.seen and self.budget > 0:
            self.seen.add(eid)
            self.row(
                eid,
                text,
                "meta",
                "system",
                self.plan.lang != "en" and rtype == "ai-title",
                self.last_stamp,
            )

    def _line(self, body: dict) -> str:
        uid = _uuid4(self.rng)
        rec = dict(self.env_head)
        rec["parentUuid"] = self.parent
        rec.update(body)
        rec["uuid"] = uid
        rec["timestamp"] = _iso(self.now)
        self.lines.append(_dump(rec))
        self.parent = uid
        self.last_stamp = self.now
        return uid

    def user(
        self, content: object, text: str, kind: str, role: str, cjk: bool, extra: dict | None = None
    ) -> None:
        body: dict = {"type": "user", "message": {"role": "user", "content": content}}
        if extra:
            body.update(extra)
        uid = self._line(body)
        self.row("claude-code:" + uid, text, kind, role, cjk)
        if self.budget > 0 and self.rng.random() < 0.001:
            self.image()

    def image(self) -> None:
        rng = self.rng
        raw = b"\x89PNG\r\n\x1a\n" + rng.randbytes(int(rng.uniform(1500, 4500)))
        data = base64.b64encode(raw).decode()
        self.tick(1, 20)
        block = {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": data},
        }
        uid = self._line({"type": "user", "message": {"role": "user", "content": [block]}})
        self.row(
            "claude-code:" + uid,
            f"[image image/png {len(data) * 3 // 4} bytes]",
            "message",
            "user",
            False,
        )

    def assistant(
        self, block: dict, text: str, kind: str, cjk: bool, msg: tuple[str, str], stop: str | None
    ) -> None:
        r = self.rng.random
        body = {
            "message": {
                "id": msg[0],
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [block],
                "stop_reason": stop,
                "usage": {
                    "input_tokens": 1 + int(r() * 12),
                    "cache_read_input_tokens": 2000 + int(r() * 150_000),
                    "output_tokens": 20 + int(r() * 2000),
                },
            },
            "requestId": msg[1],
            "type": "assistant",
        }
        uid = self._line(body)
        self.row("claude-code:" + uid, text, kind, "assistant", cjk)

    def tool(self, msg: tuple[str, str]) -> None:
        rng = self.rng
        pick = self.pick
        t = self.text
        p = self.project
        k = rng.random()
        error = False
        structured: dict | None = None
        result_blocks = False
        inp: dict
        if k < 0.34:
            cmd, out = t.command()
            name, inp = "Bash", {"command": cmd, "description": t.description()}
            error = out.startswith("Traceback") and rng.random() < 0.5
            if len(out) < 300:
                structured = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
        elif k < 0.58:
            path, out = t.file_read(numbered=True)
            name, inp = "Read", {"file_path": f"{p.cwd}/{path}"}
            if rng.random() < 0.3:
                inp["offset"] = 1 + int(rng.random() * 200)
                inp["limit"] = pick((50, 100, 200))
        elif k < 0.72:
            path, old, new = t.patch()
            name = "Edit"
            inp = {
                "file_path": f"{p.cwd}/{path}",
                "old_string": "\n".join(old),
                "new_string": "\n".join(new),
                "replace_all": False,
            }
            if rng.random() < 0.05:
                error = True
                out = (
                    "<tool_use_error>String to replace not found in file.\nString: "
                    + "\n".join(old)
                    + "</tool_use_error>"
                )
            else:
                first = 1 + int(rng.random() * 300)
                out = (
                    f"The file {p.cwd}/{path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"
                    + "\n".join(f"{first + i:>6}→{line}" for i, line in enumerate(new))
                )
                structured = {
                    "filePath": f"{p.cwd}/{path}",
                    "oldString": inp["old_string"],
                    "newString": inp["new_string"],
                }
        elif k < 0.84:
            ident = t.ident()
            name, inp = (
                "Grep",
                {"pattern": ident, "path": "src", "output_mode": "content", "-n": True},
            )
            out = t.grep_output(ident, _lognorm_len(rng, 250, 1.1, 8000))
        elif k < 0.9:
            path, body = pick(p.files)
            name, inp = (
                "Write",
                {
                    "file_path": f"{p.cwd}/{path}",
                    "content": "\n".join(body[: 5 + int(rng.random() * 55)]),
                },
            )
            out = f"File created successfully at: {p.cwd}/{path}"
        elif k < 0.94:
            name = "Task"
            inp = {
                "description": t.description(),
                "prompt": t.prose(300, 0.5)[0],
                "subagent_type": pick(("general-purpose", "Explore")),
            }
            out = t.prose(600, 0.7)[0]
            result_blocks = True
        elif k < 0.97:
            name, inp = (
                "Glob",
                {"pattern": pick(("**/*.py", "**/*.ts", "src/**/*", "tests/**/test_*.py"))},
            )
            out = "\n".join(
                f"{p.cwd}/{q}"
                for q in rng.sample(p.paths, min(len(p.paths), 1 + int(rng.random() * 24)))
            )
        else:
            name = "TodoWrite"
            inp = {
                "todos": [
                    {
                        "content": t.description(),
                        "status": pick(("pending", "in_progress", "completed")),
                        "activeForm": t.description(),
                    }
                    for _ in range(1 + int(rng.random() * 5))
                ]
            }
            out = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"
        tool_id = "toolu_01" + _b62(rng, 22)
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": inp}
        self.tick(0.3, 4)
        cjk = self.plan.lang != "en" and name in ("Task", "TodoWrite")
        self.assistant(
            block, name + " " + orjson.dumps(inp).decode(), "tool_use", cjk, msg, "tool_use"
        )
        if self.budget <= 0:
            return
        self.tick(0.1, 25)
        content: object = [{"type": "text", "text": out}] if result_blocks else out
        result: dict = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if error:
            result["is_error"] = True
        extra = {"toolUseResult": structured} if structured is not None else None
        cjk = name == "Task" and self.plan.lang != "en"
        self.user([result], "[error] " + out if error else out, "tool_result", "system", cjk, extra)

    def new_msg(self) -> tuple[str, str]:
        return "msg_01" + _b62(self.rng, 22), "req_011C" + _b62(self.rng, 20)

    def generate(self) -> None:
        rng = self.rng
        t = self.text
        self.bookkeeping(self.mode_line, "permission-mode", self.mode_text)
        first = True
        while self.budget > 0:
            # A resumed session: a gap of a day or two, then the bookkeeping lines again.
            if not first and rng.random() < 0.04:
                self.now += int(rng.uniform(20, 50)) * 3_600_000
                self.bookkeeping(self.mode_line, "permission-mode", self.mode_text)
                if self.title_line:
                    self.bookkeeping(self.title_line, "ai-title", self.title_text)
                if self.budget <= 0:
                    break
            self.tick(20, 600)
            prompt, cjk = t.prose(140, 1.0)
            if rng.random() < 0.08:
                prompt += "\n\n" + (
                    t.code_block() if rng.random() < 0.5 else self.pick(self.project.tracebacks)
                )
                cjk = cjk and len(prompt) < 400
            self.user(prompt, prompt, "message", "user", cjk)
            if first:
                title = t.description()[:60]
                self.title_line = _dump(
                    {"type": "ai-title", "aiTitle": title, "sessionId": self.session_id}
                )
                self.title_text = f"ai-title: {title}"
            steps = min(40, int(rng.expovariate(1 / 6)) + 1)
            for _ in range(steps):
                if self.budget <= 0:
                    break
                msg = self.new_msg()
                if rng.random() < 0.4:
                    self.tick(1, 12)
                    text, cjk = t.prose(220, 0.8)
                    block = {
                        "type": "thinking",
                        "thinking": text,
                        "signature": _b62(rng, 96) + "==",
                    }
                    self.assistant(block, text, "meta", cjk, msg, None)
                    if self.budget <= 0:
                        break
                if rng.random() < 0.35:
                    self.tick(0.5, 5)
                    text, cjk = t.prose(160, 0.8)
                    self.assistant({"type": "text", "text": text}, text, "message", cjk, msg, None)
                    if self.budget <= 0:
                        break
                self.tool(msg)
            if self.budget <= 0:
                break
            self.tick(1, 15)
            text, cjk = t.prose(330, 0.9)
            if rng.random() < 0.25:
                text += "\n\n" + t.code_block()
                cjk = cjk and len(text) < 500
            self.assistant(
                {"type": "text", "text": text}, text, "message", cjk, self.new_msg(), "end_turn"
            )
            if first and self.title_line:
                self.bookkeeping(self.title_line, "ai-title", self.title_text)
            first = False

    def relpath(self) -> str:
        return f"claude/projects/{self.project.slug}/{self.session_id}.jsonl"


class _Codex(_Session):
    def __init__(self, ctx: Context, plan: _Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = _uuid7(self.rng, plan.start_ms)
        self.version = self.pick(_CODEX_VERSIONS)
        self.model = self.pick(("gpt-5.5", "gpt-5.5", "gpt-5.4-codex"))

    def _emit(self, kind: str, payload: dict) -> int:
        self.lines.append(_dump({"timestamp": _iso(self.now), "type": kind, "payload": payload}))
        return len(self.lines)

    def event(self, kind: str, payload: dict, text: str, ekind: str, role: str, cjk: bool) -> None:
        """A line that becomes an event: its id is its 1-based line number in the file."""
        line = self._emit(kind, payload)
        self.row(f"codex:{self.session_id}:L{line}", text, ekind, role, cjk)

    def token_count(self) -> None:
        r = self.rng.random
        used = 9000 + int(r() * 240_000)
        usage = {
            "input_tokens": used,
            "cached_input_tokens": used - int(r() * 9000),
            "output_tokens": 10 + int(r() * 4000),
            "reasoning_output_tokens": int(r() * 2000),
            "total_tokens": used + 500,
        }
        self._emit(
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": usage,
                    "last_token_usage": usage,
                    "model_context_window": 258400,
                },
                "rate_limits": {"limit_id": "codex", "primary": None, "secondary": None},
            },
        )

    def message(self, role: str, text: str, kind: str, cjk: bool, phase: str | None = None) -> None:
        item_type = "output_text" if role == "assistant" else "input_text"
        payload: dict = {
            "type": "message",
            "role": role,
            "content": [{"type": item_type, "text": text}],
        }
        if phase:
            payload["phase"] = phase
        self.event(
            "response_item", payload, text, kind, "system" if kind == "system" else role, cjk
        )

    def tool(self) -> None:
        rng = self.rng
        pick = self.pick
        t = self.text
        p = self.project
        call_id = "call_" + _b62(rng, 24)
        k = rng.random()
        self.tick(0.3, 4)
        if k < 0.18:
            path, old, new = t.patch()
            patch = (
                f"*** Begin Patch\n*** Update File: {path}\n@@\n"
                + "\n".join("-" + x for x in old)
                + "\n"
                + "\n".join("+" + x for x in new)
                + "\n*** End Patch\n"
            )
            payload = {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
            }
            self.event(
                "response_item", payload, "apply_patch " + patch, "tool_use", "assistant", False
            )
            if self.budget <= 0:
                return
            self.tick(0.05, 1)
            out = f"Success. Updated the following files:\nM {path}\n"
            wrapped = _dump(
                {"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}
            ).decode()
            self.event(
                "response_item",
                {"type": "custom_tool_call_output", "call_id": call_id, "output": wrapped},
                out,
                "tool_result",
                "system",
                False,
            )
            return
        if k < 0.45:
            path, out = t.file_read(numbered=False)
            cmd = pick((f"cat {path}", f"sed -n '1,{pick((80, 200, 400))}p' {path}"))
        else:
            cmd, out = t.command()
        code = (
            1
            if out.startswith("Traceback") or "FAILED" in out[-300:] or " FAIL " in out[-300:]
            else 0
        )
        if rng.random() < 0.6:
            name = "exec_command"
            args: dict = {
                "cmd": cmd,
                "workdir": p.cwd,
                "yield_time_ms": 1000,
                "max_output_tokens": 8000,
            }
            output = (
                f"Chunk ID: {rng.getrandbits(24):06x}\nWall time: {rng.random() * 8:.4f} seconds\n"
                f"Process exited with code {code}\nOriginal token count: {len(out) // 4}\nOutput:\n{out}"
            )
            text_out = output
        else:
            name = "shell"
            args = {"command": ["bash", "-lc", cmd], "workdir": p.cwd, "timeout_ms": 120000}
            output = _dump(
                {
                    "output": out,
                    "metadata": {"exit_code": code, "duration_seconds": round(rng.random() * 9, 1)},
                }
            ).decode()
            text_out = f"[error: exit code {code}] {out}" if code else out
        arguments = _dump(args).decode()
        payload = {
            "type": "function_call",
            "name": name,
            "arguments": arguments,
            "call_id": call_id,
        }
        self.event("response_item", payload, f"{name} {arguments}", "tool_use", "assistant", False)
        if self.budget <= 0:
            return
        self.tick(0.1, 25)
        self.event(
            "response_item",
            {"type": "function_call_output", "call_id": call_id, "output": output},
            text_out,
            "tool_result",
            "system",
            False,
        )

    def generate(self) -> None:
        rng = self.rng
        pick = self.pick
        t = self.text
        p = self.project
        self.event(
            "session_meta",
            {
                "id": self.session_id,
                "timestamp": _iso(self.now),
                "cwd": p.cwd,
                "originator": "codex_cli_rs",
                "cli_version": self.version,
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": self.ctx.base_instructions},
                "git": {
                    "commit_hash": pick(p.hashes),
                    "branch": pick(p.branches),
                    "repository_url": p.repo_url,
                },
            },
            f"session start: codex_cli_rs, {self.version}, source cli, cwd {p.cwd}",
            "meta",
            "system",
            False,
        )
        injected = (
            "<permissions instructions>\nFilesystem sandboxing: workspace-write. Network access is restricted. Approval policy: on-request.\n</permissions instructions>",
            f"# AGENTS.md instructions for {p.cwd}\n\n<INSTRUCTIONS>\n"
            + " ".join(t.en_sentence() for _ in range(2 + int(rng.random() * 6)))
            + "\n</INSTRUCTIONS>",
            f"<environment_context>\n  <cwd>{p.cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>",
        )
        for i, text in enumerate(injected):
            if self.budget > 0:
                self.message("developer" if i == 0 else "user", text, "system", False)
        first = True
        while self.budget > 0:
            if not first and rng.random() < 0.04:
                self.now += int(rng.uniform(20, 50)) * 3_600_000
            self.tick(20, 600)
            turn = _uuid7(rng, self.now)
            effort = pick(("medium", "high"))
            self.event(
                "turn_context",
                {
                    "turn_id": turn,
                    "cwd": p.cwd,
                    "current_date": _iso(self.now)[:10],
                    "timezone": "UTC",
                    "approval_policy": "on-request",
                    "sandbox_policy": {"type": "workspace-write", "network_access": False},
                    "model": self.model,
                    "effort": effort,
                    "summary": "auto",
                },
                f"turn: model {self.model} ({effort}), approval on-request, sandbox workspace-write, cwd {p.cwd}",
                "meta",
                "system",
                False,
            )
            if self.budget <= 0:
                break
            started = self.now
            self._emit(
                "event_msg",
                {
                    "type": "task_started",
                    "turn_id": turn,
                    "started_at": self.now // 1000,
                    "model_context_window": 258400,
                },
            )
            prompt, cjk = t.prose(140, 1.0)
            self.message("user", prompt, "message", cjk)
            self._emit(
                "event_msg",
                {
                    "type": "user_message",
                    "message": prompt,
                    "images": [],
                    "local_images": [],
                    "text_elements": [],
                },
            )
            self.token_count()
            steps = min(40, int(rng.expovariate(1 / 6)) + 1)
            for _ in range(steps):
                if self.budget <= 0:
                    break
                if rng.random() < 0.5:
                    self.tick(1, 12)
                    summary, cjk = t.prose(150, 0.7)
                    payload = {
                        "type": "reasoning",
                        "summary": [{"type": "summary_text", "text": summary}],
                        "content": None,
                        "encrypted_content": "gAAAAAB" + _b62(rng, 200 + int(rng.random() * 700)),
                    }
                    self.event("response_item", payload, summary, "meta", "assistant", cjk)
                    if self.budget <= 0:
                        break
                if rng.random() < 0.2:
                    self.tick(0.5, 5)
                    text, cjk = t.prose(150, 0.7)
                    self.message("assistant", text, "message", cjk, "commentary")
                    self._emit(
                        "event_msg",
                        {
                            "type": "agent_message",
                            "message": text,
                            "phase": "commentary",
                            "memory_citation": None,
                        },
                    )
                    if self.budget <= 0:
                        break
                self.tool()
                if rng.random() < 0.5:
                    self.token_count()
            if self.budget <= 0:
                break
            self.tick(1, 15)
            text, cjk = t.prose(330, 0.9)
            if rng.random() < 0.2:
                text += "\n\n" + t.code_block()
                cjk = cjk and len(text) < 500
            self.message("assistant", text, "message", cjk, "final_answer")
            self._emit(
                "event_msg",
                {
                    "type": "agent_message",
                    "message": text,
                    "phase": "final_answer",
                    "memory_citation": None,
                },
            )
            self.token_count()
            self._emit(
                "event_msg",
                {
                    "type": "task_complete",
                    "turn_id": turn,
                    "last_agent_message": text[:80],
                    "completed_at": self.now // 1000,
                    "duration_ms": self.now - started,
                },
            )
            if first and self.budget > 0:
                name = t.description()[:60]
                payload = {
                    "type": "thread_name_updated",
                    "thread_id": self.session_id,
                    "thread_name": name,
                }
                self.event(
                    "event_msg",
                    payload,
                    f"thread name: {name}",
                    "meta",
                    "system",
                    self.plan.lang != "en",
                )
            first = False

    def relpath(self) -> str:
        start = time.gmtime(self.plan.start_ms // 1000)
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", start)
        return f"codex/sessions/{start.tm_year:04d}/{start.tm_mon:02d}/{start.tm_mday:02d}/rollout-{stamp}-{self.session_id}.jsonl"


def _run_session(plan: _Plan) -> _SessionOut:
    assert _CTX is not None and _OUT is not None
    cls = _Claude if plan.source == "claude-code" else _Codex
    s = cls(_CTX, plan, _CTX.seed)
    s.generate()
    data = b"\n".join(s.lines) + b"\n"
    rel = s.relpath()
    path = _OUT / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    # Like a real agent's log, the file was last written when its session's last event happened.
    last = max((orjson.loads(row)[7] for row in s.rows), default=plan.start_ms) / 1000
    os.utime(path, (last, last))
    table = zstandard.ZstdCompressor(level=3).compress(b"\n".join(s.rows) + b"\n")
    return _SessionOut(table, len(s.rows), len(s.lines), len(data), s.cjk)


def _plan_sessions(events: int, seed: int, n_projects: int, weights: list[float]) -> list[_Plan]:
    rng = random.Random(f"plan:{seed}")
    upper = min(2000, max(60, events // 20))
    lower = min(50, upper)
    plans: list[_Plan] = []
    claude_total = round(events * 0.7)
    for source, total in (("claude-code", claude_total), ("codex", events - claude_total)):
        deck: list[str] = []
        remaining = total
        index = 0
        while remaining > 0:
            size = int(round(math.exp(rng.uniform(math.log(lower), math.log(upper)))))
            if remaining <= upper or remaining - size < lower:
                size = remaining if remaining <= upper else remaining - lower
            if not deck:
                deck = list(_LANG_DECK)
                rng.shuffle(deck)
            project = rng.choices(range(n_projects), weights=weights)[0]
            start = BASE_MS + rng.randrange(END_MS - BASE_MS - 3 * 86_400_000)
            plans.append(_Plan(source, index, size, project, deck.pop(), start))
            remaining -= size
            index += 1
    return plans


# --------------------------------------------------------------------------------------------
# Public API.
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class CorpusInfo:
    """What was written; saved as ``corpus.json`` so cached corpora describe themselves."""

    events: int
    lines: int
    bytes: int
    sessions: int
    files: int
    cjk_fraction: float
    seed: int = 42
    generator_version: str = GENERATOR_VERSION
    seconds: float = 0.0


def generate(out_dir: Path, events: int, seed: int = 42, workers: int | None = None) -> CorpusInfo:
    """Write a fake agent home (``claude/``, ``codex/``) plus the events table under ``out_dir``.

    Output depends only on ``events`` and ``seed``: every session has its own rng, and sessions
    are written in plan order whatever the number of worker processes.
    """
    global _CTX, _OUT
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} is not empty")
    ctx = build_context(seed)
    plans = _plan_sessions(events, seed, len(ctx.projects), ctx.project_weights)
    _CTX, _OUT = ctx, out_dir
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    totals = {"events": 0, "lines": 0, "bytes": 0, "cjk": 0}
    try:
        with open(out_dir / EVENTS_FILE, "wb") as table:
            if workers > 1 and len(plans) > 1:
                mp = multiprocessing.get_context("fork")
                with mp.Pool(workers) as pool:
                    outs = pool.imap(_run_session, plans, chunksize=2)
                    _collect(outs, table, totals)
            else:
                _collect(map(_run_session, plans), table, totals)
    finally:
        _CTX = _OUT = None
    info = CorpusInfo(
        events=totals["events"],
        lines=totals["lines"],
        bytes=totals["bytes"],
        sessions=len(plans),
        files=len(plans),
        cjk_fraction=round(totals["cjk"] / max(1, totals["events"]), 4),
        seed=seed,
        seconds=round(time.perf_counter() - t0, 2),
    )
    (out_dir / INFO_FILE).write_bytes(orjson.dumps(asdict(info), option=orjson.OPT_INDENT_2))
    return info


def _collect(outs: Iterator[_SessionOut], table: io.BufferedWriter, totals: dict[str, int]) -> None:
    for out in outs:
        table.write(out.table)
        totals["events"] += out.events
        totals["lines"] += out.lines
        totals["bytes"] += out.bytes
        totals["cjk"] += out.cjk


def load_info(corpus_dir: Path) -> CorpusInfo:
    return CorpusInfo(**orjson.loads((Path(corpus_dir) / INFO_FILE).read_bytes()))


def iter_event_lines(corpus_dir: Path) -> Iterator[bytes]:
    """Raw table lines, for callers that only decode the few they keep."""
    with open(Path(corpus_dir) / EVENTS_FILE, "rb") as f:
        reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
        buffered = io.BufferedReader(reader, buffer_size=1 << 20)  # type: ignore[arg-type]
        for line in buffered:
            if line.strip():
                yield line


def iter_events(corpus_dir: Path) -> Iterator[EventRow]:
    """``(id, text, source, project, session, kind, role, time_ms)`` for every event, in order."""
    loads = orjson.loads
    for line in iter_event_lines(corpus_dir):
        yield tuple(loads(line))  # type: ignore[misc]



def write_samples(target: Path, events: int = 20_000, seed: int = 42) -> CorpusInfo:
    """Realistic Claude Code and Codex logs for a machine that has none (`origin run`)."""
    target.mkdir(parents=True, exist_ok=True)
    if (target / INFO_FILE).exists():
        return load_info(target)
    for child in target.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    return generate(target, events, seed, workers=1)
