"""The demo's code: the bugs its tasks find and the edits that fix them, by language.

Data and small formatters. A ``Change`` is an edit an agent makes (the old and new text, and
why, in English and Chinese); ``source`` is the file around it as a read shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .projects import Part


@dataclass(frozen=True, slots=True)
class Change:
    """One edit: what it replaces, with what, why (both languages), and the error it ends."""

    old: str
    new: str
    why_en: str
    why_zh: str
    error: str = ""


#: Bugs a failing test or a crash shows, by language: the error, the line, its fix, the cause.
BUGS: dict[str, tuple[Change, ...]] = {
    "py": (
        Change(
            '    created = datetime.strptime(row["created_at"], "%Y-%m-%d %H:%M:%S")',
            '    created = datetime.fromisoformat(row["created_at"]).astimezone(timezone.utc)',
            "the timestamps come back from the API with an offset, so the naive `strptime` "
            "result is compared with an aware datetime",
            "接口返回的时间带时区偏移，`strptime` 得到的是 naive datetime，和带时区的时间比较就会报错",
            "TypeError: can't compare offset-naive and offset-aware datetimes",
        ),
        Change(
            '    worker = job["worker_id"]',
            '    worker = job.get("worker_id") or assign_worker(job)',
            "jobs enqueued by the retry path have no `worker_id` yet, and the code indexes "
            "the dict directly",
            "重试路径入队的任务还没有 `worker_id`，代码直接用下标取值",
            "KeyError: 'worker_id'",
        ),
        Change(
            "    return user.id",
            '    if user is None:\n        raise NotFoundError(f"no user {email!r}")\n'
            "    return user.id",
            "the lookup returns `None` for an unknown email and the caller dereferences it",
            "查不到邮箱时查询返回 `None`，调用方直接访问了它的属性",
            "AttributeError: 'NoneType' object has no attribute 'id'",
        ),
        Change(
            "    rows = session.execute(select(Order).where(Order.shop_id == shop_id)).all()",
            "    rows = session.execute(\n        select(Order).where(Order.shop_id == shop_id)"
            ".order_by(Order.id)\n    ).all()",
            "the query has no `ORDER BY`, so PostgreSQL returns rows in whatever order the "
            "plan gives; locally it happened to be insertion order",
            "查询没有 `ORDER BY`，PostgreSQL 返回的顺序取决于执行计划，本地恰好是插入顺序",
            "AssertionError: assert [1042, 1040, 1041] == [1040, 1041, 1042]",
        ),
        Change(
            "    total = sum(line.price * line.qty for line in lines)",
            '    total = sum((line.price * line.qty for line in lines), Decimal("0"))\n'
            '    total = total.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)',
            "the total is never rounded to cents, so 3 × 3.33 gives 9.99 and the expected "
            "value is 10.00 after tax",
            "总价没有按分四舍五入，3 × 3.33 算出来是 9.99，含税后应该是 10.00",
            "AssertionError: assert Decimal('9.99') == Decimal('10.00')",
        ),
        Change(
            "    page = items[offset : offset + limit - 1]",
            "    page = items[offset : offset + limit]",
            "the slice drops the last item of every page (an off-by-one in the upper bound)",
            "切片的上界多减了 1，每一页都少了最后一条",
            "AssertionError: assert 19 == 20",
        ),
        Change(
            '    region = config["region"]',
            '    region = config.get("region") or DEFAULT_REGION',
            "`region` became optional in the config file last month, but this code still "
            "indexes it directly",
            "上个月配置文件里的 `region` 改成了可选项，这里还是直接用下标取值",
            "KeyError: 'region'",
        ),
        Change(
            "    previous = releases[-2]",
            "    if len(releases) < 2:\n"
            '        raise typer.BadParameter("nothing to roll back to: only one release")\n'
            "    previous = releases[-2]",
            "a service with a single release has nothing before it, and the code assumes two",
            "只有一个版本的服务没有上一个版本可回滚，代码默认至少有两个",
            "IndexError: list index out of range",
        ),
    ),
    "ts": (
        Change(
            "  return data.items.map(toRow);",
            "  return (data?.items ?? []).map(toRow);",
            "the API answers `204 No Content` for an empty shop, so `data` is undefined",
            "店铺没有数据时接口返回 `204 No Content`，`data` 是 undefined",
            "TypeError: Cannot read properties of undefined (reading 'items')",
        ),
        Change(
            "  return date.toLocaleDateString();",
            "  return format(date, 'yyyy-MM-dd');",
            "`toLocaleDateString` depends on the machine's locale, and CI runs with `en-US`",
            "`toLocaleDateString` 的结果取决于机器的 locale，CI 上是 `en-US`",
            "AssertionError: expected '12/3/2026' to be '2026-12-03'",
        ),
        Change(
            "    setLoading(false);\n    onSuccess(user);",
            "    onSuccess(user);\n    setLoading(false);",
            "the component unmounts in `onSuccess` and then sets state, which the test "
            "reports as an act() warning turned error",
            "组件在 `onSuccess` 里已经卸载了，之后又调用了 setState，测试把 act() 警告当成错误",
            "Error: Warning: Can't perform a React state update on an unmounted component",
        ),
        Change(
            "  const res = await fetch(url);",
            "  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });",
            "the request has no timeout, so a hung backend leaves the spinner forever",
            "请求没有设置超时，后端卡住时页面会一直转圈",
            "Error: Test timed out in 5000ms.",
        ),
    ),
}


def feature(kind: str, part: Part, lang: str) -> Change:
    """The edit a feature task makes to ``part``: timeout, rate limit, cache, refactor."""
    f = part.func
    if lang == "ts":
        return _TS_FEATURES.get(kind, _TS_FEATURES["cache"])(f)
    return _PY_FEATURES.get(kind, _PY_FEATURES["cache"])(f)


_PY_FEATURES = {
    "timeout": lambda f: Change(
        "    resp = await client.get(url)",
        "    resp = await client.get(url, timeout=settings.upstream_timeout)\n"
        "    resp.raise_for_status()",
        "the upstream call had no timeout, so one slow dependency held a worker for 60 s",
        "上游调用没有设置超时，一个慢依赖会占住 worker 60 秒",
        "httpx.ReadTimeout: timed out",
    ),
    "rate_limit": lambda f: Change(
        f'@router.post("/{f.split("_")[-1]}")\nasync def {f}(',
        f'@router.post("/{f.split("_")[-1]}")\n@limiter.limit("5/minute", key_func=client_ip)'
        f"\nasync def {f}(",
        "each client IP gets 5 requests a minute; the 6th answers 429 with `Retry-After`",
        "每个客户端 IP 每分钟最多 5 次请求，第 6 次返回 429 并带上 `Retry-After`",
    ),
    "cache": lambda f: Change(
        f"def {f}(session: Session, key: str):",
        f"@cached(cache=TTLCache(maxsize=1024, ttl=60), key=lambda session, key: key)\n"
        f"def {f}(session: Session, key: str):",
        "results are kept 60 s in an in-process TTL cache keyed by the lookup key, and "
        "invalidated on write",
        "结果按 key 缓存在进程内的 TTL 缓存里，60 秒过期，写入时主动失效",
    ),
    "refactor": lambda f: Change(
        f"def {f}(session: Session, key: str):\n    # validate, load, transform, save",
        f"def {f}(session: Session, key: str):\n    request = _validate(key)\n"
        "    rows = _load(session, request)\n    return _save(session, _transform(rows))",
        "the function is split into `_validate`, `_load`, `_transform` and `_save`, each "
        "tested on its own",
        "把函数拆成 `_validate`、`_load`、`_transform` 和 `_save` 四个小函数，分别测试",
    ),
}

_TS_FEATURES = {
    "cache": lambda f: Change(
        f"export function {f}(params: Query) {{\n  return useQuery(['orders', params], fetchOrders);",
        f"export function {f}(params: Query) {{\n  return useQuery(['orders', params], fetchOrders,"
        " {\n    staleTime: 60_000,\n    keepPreviousData: true,\n  });",
        "the query result stays fresh for a minute and the previous page stays on screen "
        "while the next one loads",
        "查询结果 1 分钟内视为新鲜数据，翻页时保留上一页，避免闪烁",
    ),
    "refactor": lambda f: Change(
        f"export function {f}(props: Props) {{\n  // 180 lines of state and effects",
        f"export function {f}(props: Props) {{\n  const form = useLoginForm(props);\n"
        "  return <LoginFormView {...form} />;",
        "state and effects move into a `useLoginForm` hook; the view is a plain component",
        "把状态和副作用抽到 `useLoginForm` hook 里，视图部分变成纯组件",
    ),
}


def added_test(part: Part, lang: str, *cases: str) -> Change:
    """New tests appended to ``part``'s test file, one per case."""
    if lang == "ts":
        tests = "".join(
            f"  it('{case}', async () => {{\n    const result = await {part.func}(emptyInput);\n"
            "    expect(result).toEqual([]);\n  });\n"
            for case in cases
        )
        return Change("});", tests + "});", ", ".join(cases), "、".join(cases))
    last = f'    assert {part.func}(db, key="a")'
    tests = "".join(
        f"\n\ndef test_{part.func}_{case.replace(' ', '_')}(client, db):\n"
        f'    result = {part.func}(db, key="")\n    assert result == []'
        for case in cases
    )
    return Change(last, last + tests, ", ".join(cases), "、".join(cases))


def source(part: Part, lang: str, inner: str = "") -> str:
    """The file around ``inner`` (the lines a task is about), as a read shows it."""
    if lang == "ts":
        head = [
            "import { useState } from 'react';",
            "import { format } from 'date-fns';",
            "import { api } from '../api/client';",
            "",
            "type Props = { onSuccess: (user: User) => void };",
            "",
            f"export async function {part.func}(input: Input) {{",
        ]
        tail = [
            "  const data = await res.json();",
            "  const result = data.items.map(toRow);",
            "  return result;",
            "}",
        ]
    else:
        module = part.path.removesuffix(".py").replace("/", ".")
        head = [
            f'"""{module}: {part.en.removeprefix("the ")}."""',
            "",
            "from __future__ import annotations",
            "",
            "import logging",
            "from datetime import datetime, timezone",
            "from decimal import ROUND_HALF_UP, Decimal",
            "",
            "from app.settings import settings",
            "",
            "logger = logging.getLogger(__name__)",
            "",
            "",
            f"def {part.func}(session: Session, key: str):",
            f'    logger.debug("{part.func} %s", key)',
        ]
        tail = [
            "    rows = session.execute(select(Order).where(Order.key == key)).scalars().all()",
            "    if not rows:",
            "        raise NotFoundError(key)",
            "    result = [row.to_dict() for row in rows]",
            "    return result",
            "",
        ]
    return "\n".join([*head, *([inner] if inner else []), *tail])


def test_source(part: Part, lang: str) -> str:
    """``part``'s test file before a task adds to it."""
    if lang == "ts":
        name = part.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        return (
            f"import {{ describe, expect, it }} from 'vitest';\nimport {{ {part.func} }} from"
            f" './{name}';\n\ndescribe('{part.func}', () => {{\n  it('works', async () => {{\n"
            f"    expect(await {part.func}(input)).toMatchSnapshot();\n  }});\n}});"
        )
    module = part.path.removesuffix(".py").replace("/", ".")
    return (
        f"from {module} import {part.func}\n\n\ndef test_{part.func}_happy_path(db):\n"
        f'    assert {part.func}(db, key="a")'
    )


def numbered(text: str, first: int = 1) -> str:
    """``cat -n`` style lines, as Claude Code's Read shows a file."""
    return "\n".join(f"{first + i:>6}→{line}" for i, line in enumerate(text.split("\n")))


def unified(path: str, change: Change, line: int) -> str:
    """``git diff`` of one change."""
    old, new = change.old.split("\n"), change.new.split("\n")
    return (
        f"diff --git a/{path} b/{path}\nindex 3f2a91c..8be04d7 100644\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{line},{len(old)} +{line},{len(new)} @@\n"
        + "\n".join(["-" + x for x in old] + ["+" + x for x in new])
    )
