"""What the demo's people ask and its agents answer, in English and Chinese.

Data only: ``str.format`` templates whose fields are ``part`` (the part's English name), ``zh``
(its Chinese name), ``func``, ``path``, ``test``, ``error``, ``why`` and ``cmd``. A title is
what the agent names the session; a prompt is what the person typed.
"""

from __future__ import annotations

#: Session titles by task kind and language.
TITLES: dict[str, dict[str, tuple[str, ...]]] = {
    "fix_test": {
        "en": (
            "Why does {func} fail on CI?",
            "Fix the failing {func} tests",
            "Flaky test in {test}",
        ),
        "zh": ("{func} 的测试在 CI 上失败", "修复 {test} 里失败的测试", "排查 CI 上失败的单元测试"),
    },
    "timeout": {
        "en": ("Fix the timeout in {part}", "{part} times out under load"),
        "zh": ("修复{zh}的超时问题", "{zh}在高峰期超时"),
    },
    "rate_limit": {
        "en": ("Add a rate limit to {part}", "Rate limit {part} per client IP"),
        "zh": ("给{zh}加限流", "{zh}按 IP 限流"),
    },
    "cache": {
        "en": ("Add caching to {part}", "Cache the results of {func}"),
        "zh": ("给{zh}加缓存", "{func} 加缓存，减少重复查询"),
    },
    "crash": {
        "en": ("{error_head} in {func}", "Crash in {part}: {error_head}"),
        "zh": ("{zh}报错 {error_head}", "修复{zh}的崩溃"),
    },
    "explain": {
        "en": ("How does {part} work?", "Explain {func} and its callers"),
        "zh": ("解释一下{zh}的实现", "{zh}是怎么工作的"),
    },
    "tests": {
        "en": ("Write tests for {func}", "Add edge-case tests for {part}"),
        "zh": ("给 {func} 补充单元测试", "为{zh}补边界测试"),
    },
    "migration": {
        "en": ("Add an index for {part} queries", "Database migration for {part}"),
        "zh": ("给{zh}写一个数据库 migration", "{zh}加索引的数据库 migration"),
    },
    "refactor": {
        "en": ("Refactor {func} into smaller functions", "Clean up {part}"),
        "zh": ("重构 {func}，拆成小函数", "整理{zh}的代码"),
    },
}

#: What the person types first, by task kind and language.
PROMPTS: dict[str, dict[str, tuple[str, ...]]] = {
    "fix_test": {
        "en": (
            "Why does {func} fail on CI? It passes on my machine. The job log ends with:\n\n"
            "```\n{error}\n```",
            "The tests in {test} started failing after yesterday's merge. Can you find out why "
            "and fix it? Don't change the test unless it is wrong.",
        ),
        "zh": (
            "{test} 在 CI 上一直失败，本地是好的。报错是：\n\n```\n{error}\n```\n帮我看看原因并修复。",
            "昨天合并之后 {func} 的测试就挂了，帮我查一下原因，除非测试本身写错了，否则不要改测试。",
        ),
    },
    "timeout": {
        "en": (
            "{part} times out under load (p99 is over 30 s in Grafana). Find the slow call and "
            "give it a sane timeout from settings.",
            "Users report that {part} hangs. Please look at the logs and fix the timeout.",
        ),
        "zh": (
            "{zh}在高峰期经常超时，Grafana 上 p99 超过 30 秒。找到慢的调用，超时时间从 settings 里读。",
            "修复{zh}的超时问题，用户反馈请求一直卡住。先看一下日志。",
        ),
    },
    "rate_limit": {
        "en": (
            "Add rate limiting to {part}: 5 requests per minute per client IP, answer 429 with "
            "Retry-After. Add a test.",
            "We're seeing credential stuffing on {part}. Can you add a per-IP rate limit?",
            "Add a rate limit to {part}. Use the limiter we already have in `app/limits.py`.",
        ),
        "zh": (
            "给{zh}加限流：每个 IP 每分钟 5 次，超过返回 429 和 Retry-After，并补一个测试。",
            "{zh}最近被刷，帮我按客户端 IP 做一下限流。",
        ),
    },
    "cache": {
        "en": (
            "Add caching to {part}. {func} hits the database on every call; a 60 s TTL is fine, "
            "but writes must invalidate it.",
            "Can we cache the results of {func}? It shows up at the top of the profile.",
        ),
        "zh": (
            "给{zh}加缓存，{func} 每次都查数据库。TTL 60 秒就行，但写入时要让缓存失效。",
            "{func} 在 profile 里排第一，能不能加个缓存？",
        ),
    },
    "crash": {
        "en": (
            "`{cmd}` crashes:\n\n```\n{error}\n```\nFix it, and add a test that would have "
            "caught it.",
            "{part} blows up with {error_head}. Can you take a look?",
        ),
        "zh": (
            "运行 `{cmd}` 报错：\n\n```\n{error}\n```\n帮我修一下，再加一个能发现这个问题的测试。",
            "{zh}报错了：{error_head}，帮我看看。",
        ),
    },
    "explain": {
        "en": (
            "How does {part} work? I need to change it next week and I've never read it.",
            "Explain {func} in {path}: what calls it, and what happens on failure?",
        ),
        "zh": (
            "解释一下{zh}是怎么工作的，下周要改这块代码，我还没看过。",
            "{path} 里的 {func} 是做什么的？谁调用它，失败时会发生什么？",
        ),
    },
    "tests": {
        "en": (
            "Write tests for {func}: the empty case, an unknown key, and the retry path.",
            "{part} has almost no tests. Add a few edge-case tests to {test}.",
        ),
        "zh": (
            "给 {func} 补充单元测试：空输入、不存在的 key、重试这几种情况。",
            "{zh}几乎没有测试，帮我在 {test} 里补几个边界情况。",
        ),
    },
    "migration": {
        "en": (
            "The queries behind {part} do a sequential scan on orders. Add an index with an "
            "Alembic migration and check the plan.",
        ),
        "zh": (
            "{zh}的查询在 orders 表上全表扫描，写一个数据库 migration 加索引，并确认执行计划。",
        ),
    },
    "refactor": {
        "en": (
            "Refactor {func} into smaller functions; it is 180 lines and does four things. "
            "Behaviour must not change.",
        ),
        "zh": ("重构 {func}，现在 180 行做了四件事，拆成几个小函数，行为不能变。",),
    },
}

#: What the agent thinks while it works: (before the first look, after finding the cause,
#: before reading code to explain it).
THOUGHTS: dict[str, tuple[str, str, str]] = {
    "en": (
        "The user wants me to look at {part}. I'll start with {path} and the tests in {test}, "
        "then run them to see the failure myself.",
        "Found it: {why}. The fix belongs in {func} itself, not in the callers.",
        "I'll find who calls {func} first, then read {path} and its tests in {test}.",
    ),
    "zh": (
        "用户想让我处理{zh}。先看 {path} 和 {test}，再跑一下测试确认问题。",
        "找到原因了：{why}。应该在 {func} 里修，而不是改调用方。",
        "先找出谁调用了 {func}，再读 {path} 和 {test}。",
    ),
}

#: Short notes between tool calls.
NOTES: dict[str, tuple[str, ...]] = {
    "en": (
        "Let me run the tests first to see the failure.",
        "Now I'll look at {path}.",
        "The fix is small; applying it to {path}.",
        "Running the suite again to confirm.",
    ),
    "zh": (
        "先跑一下测试看看报错。",
        "现在看一下 {path}。",
        "改动很小，直接修改 {path}。",
        "再跑一遍测试确认。",
    ),
}

#: The final answer of a task's first turn, Markdown with the fix in a fence.
ANSWERS: dict[str, tuple[str, ...]] = {
    "en": (
        "**Cause:** {why}.\n\n**Fix** in `{path}`:\n\n```{fence}\n{new}\n```\n\n"
        "`{test_cmd}` now passes. I didn't touch the tests.",
        "Done. {why_cap}.\n\nChanges:\n- `{path}`: the change below\n- `{test}`: a test for the "
        "case\n\n```{fence}\n{new}\n```\n\nAll tests pass (`{test_cmd}`).",
    ),
    "zh": (
        "**原因：**{why}。\n\n**修复**（`{path}`）：\n\n```{fence}\n{new}\n```\n\n"
        "`{test_cmd}` 已经全部通过，测试没有改动。",
        "已完成。{why}。\n\n改动：\n- `{path}`：见下方代码\n- `{test}`：补了对应的测试\n\n"
        "```{fence}\n{new}\n```\n\n全部测试通过（`{test_cmd}`）。",
    ),
}

#: A tests task's answer.
TESTS_DONE: dict[str, str] = {
    "en": (
        "Added three tests to `{test}`: {why}.\n\n```{fence}\n{new}\n```\n\n"
        "They pass with the rest of the suite (`{test_cmd}`)."
    ),
    "zh": (
        "在 `{test}` 里加了三个测试：{why}。\n\n```{fence}\n{new}\n```\n\n"
        "和其他测试一起全部通过（`{test_cmd}`）。"
    ),
}

#: An explain task's answer.
EXPLAIN: dict[str, str] = {
    "en": (
        "## How {func} works\n\n1. It validates the key and logs the call.\n2. It loads the rows "
        "through the session, inside the caller's transaction.\n3. On failure it raises, and the "
        "caller in `{other}` turns that into an error response.\n\n```{fence}\n{snippet}\n```\n\n"
        "The tests in `{test}` cover the happy path only; the failure path is untested."
    ),
    "zh": (
        "## {func} 的工作方式\n\n1. 先校验 key 并记录日志。\n2. 在调用方的事务里通过 session 读取数据。\n"
        "3. 出错时抛出异常，`{other}` 里的调用方把它转换成错误响应。\n\n```{fence}\n{snippet}\n```\n\n"
        "`{test}` 里只测了正常路径，失败路径没有测试。"
    ),
}

#: Follow-up prompts, by what they ask for: (English, Chinese).
FOLLOW_UPS: dict[str, tuple[str, str]] = {
    "edge_test": ("Also add a test for the empty case.", "再加一个空输入的测试。"),
    "commit": ("Looks good. Commit it with a clear message.", "可以，帮我提交一下。"),
    "suite": ("Run the whole suite once more, please.", "再跑一遍全部测试。"),
    "review": ("Show me the diff before you commit.", "提交前给我看一下 diff。"),
}

#: The agent's reply to a follow-up.
FOLLOW_ANSWERS: dict[str, tuple[str, str]] = {
    "edge_test": (
        "Added `{case}` to `{test}`; it passes with the rest of the suite.",
        "已在 `{test}` 里加上 `{case}`，和其他测试一起通过。",
    ),
    "commit": (
        "Committed on `{branch}`:\n\n```\n{out}\n```",
        "已提交到 `{branch}`：\n\n```\n{out}\n```",
    ),
    "suite": ("Everything passes:\n\n```\n{tail}\n```", "全部通过：\n\n```\n{tail}\n```"),
    "review": (
        "Here is the diff; it only touches `{path}`:\n\n```diff\n{diff}\n```",
        "这是改动，只涉及 `{path}`：\n\n```diff\n{diff}\n```",
    ),
}

#: Commit messages, by task kind.
COMMITS: dict[str, str] = {
    "fix_test": "Fix {func}: {error_head}",
    "timeout": "Give {func} a timeout from settings",
    "rate_limit": "Rate limit {func} per client IP (5/min)",
    "cache": "Cache {func} results for 60 s",
    "crash": "Fix {error_head} in {func}",
    "explain": "Document {func}",
    "tests": "Add edge-case tests for {func}",
    "migration": "Add an index for {func} queries",
    "refactor": "Split {func} into smaller functions",
}
