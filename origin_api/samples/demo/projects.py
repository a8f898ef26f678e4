"""The demo's projects: four repositories a person recognises, each with parts to work on.

Data only. A part (``Part``) is what a task is about: its name in English and Chinese, the file
that holds it, the function in it, the test that covers it. The tasks (``tasks.py``) are written
against parts, so every task reads right on every project that has the part's kind.
"""

from __future__ import annotations

from dataclasses import dataclass

USER = "lin"


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of a project a task can be about."""

    en: str  # "the /login endpoint"
    zh: str  # "登录接口"
    path: str  # the file that holds it
    func: str  # the function a fix touches
    test: str  # the test file that covers it
    kinds: tuple[str, ...]  # the task kinds that make sense for it
    bugs: tuple[int, ...]  # the bugs of code.BUGS (its language's) it can have


@dataclass(frozen=True, slots=True)
class DemoProject:
    """A repository: where it is, its language, how its tests run, its parts."""

    name: str
    lang: str  # "py" or "ts"
    about: str  # one line for its CLAUDE.md / AGENTS.md
    test_cmd: str
    branches: tuple[str, ...]
    parts: tuple[Part, ...]
    conventions: tuple[str, ...]
    weight: float

    @property
    def cwd(self) -> str:
        return f"/home/{USER}/src/{self.name}"


_API = ("fix_test", "timeout", "rate_limit", "cache", "crash", "explain", "tests", "migration")
_JOB = ("fix_test", "timeout", "cache", "crash", "explain", "tests", "refactor")
_JOB_DB = (*_JOB, "migration")  # parts that query the warehouse
_UI = ("fix_test", "crash", "explain", "tests", "refactor")
_UI_DATA = (*_UI, "cache")  # parts that fetch: worth a cache
_CLI = ("fix_test", "timeout", "crash", "explain", "tests", "refactor")

PROJECTS: tuple[DemoProject, ...] = (
    DemoProject(
        name="shop-api",
        lang="py",
        about="The shop's HTTP API: FastAPI, SQLAlchemy 2 on PostgreSQL, Redis for sessions.",
        test_cmd="pytest -q",
        branches=("main", "main", "feat/login-rate-limit", "fix/checkout-timeout"),
        parts=(
            Part(
                "the /login endpoint",
                "登录接口",
                "app/api/auth.py",
                "login",
                "tests/api/test_auth.py",
                _API,
                (2, 0),
            ),
            Part(
                "the /orders endpoint",
                "订单接口",
                "app/api/orders.py",
                "list_orders",
                "tests/api/test_orders.py",
                _API,
                (3, 5),
            ),
            Part(
                "the /checkout endpoint",
                "结算接口",
                "app/api/checkout.py",
                "create_checkout",
                "tests/api/test_checkout.py",
                _API,
                (4, 0),
            ),
            Part(
                "the order service",
                "订单服务",
                "app/services/order_service.py",
                "get_order",
                "tests/services/test_order_service.py",
                _API,
                (4, 3),
            ),
            Part(
                "the user lookup",
                "用户查询",
                "app/services/users.py",
                "find_user",
                "tests/services/test_users.py",
                _API,
                (2, 5),
            ),
        ),
        conventions=(
            "Run `pytest -q` before every commit; the suite must stay under 30 s.",
            "Endpoints live in `app/api/`, business logic in `app/services/`: no SQL in routes.",
            "Every schema change gets an Alembic migration (`alembic revision --autogenerate`).",
            "Timeouts come from `app/settings.py`, never hard-coded.",
        ),
        weight=0.36,
    ),
    DemoProject(
        name="orders-etl",
        lang="py",
        about="Nightly pipeline: pulls orders from the API, dedupes, loads them into the warehouse.",
        test_cmd="pytest -q",
        branches=("main", "main", "fix/worker-id", "feat/daily-report"),
        parts=(
            Part(
                "the ingest job",
                "订单导入任务",
                "pipeline/ingest.py",
                "ingest_orders",
                "tests/test_ingest.py",
                _JOB_DB,
                (0, 1),
            ),
            Part(
                "the dedupe step",
                "去重步骤",
                "pipeline/dedupe.py",
                "dedupe_orders",
                "tests/test_dedupe.py",
                _JOB_DB,
                (3, 1),
            ),
            Part(
                "the date parser",
                "日期解析",
                "pipeline/dates.py",
                "parse_dates",
                "tests/test_dates.py",
                _JOB,
                (0,),
            ),
            Part(
                "the job queue",
                "任务队列",
                "pipeline/queue.py",
                "claim_job",
                "tests/test_queue.py",
                _JOB,
                (1, 3),
            ),
            Part(
                "the daily report",
                "日报生成",
                "pipeline/report.py",
                "build_report",
                "tests/test_report.py",
                _JOB_DB,
                (4, 0, 3),
            ),
        ),
        conventions=(
            "Jobs must be idempotent: re-running a day never duplicates rows.",
            "Dates are UTC everywhere; parse with `pipeline.dates.parse_dates`.",
            "Use `make test` (pytest with the fixtures in `tests/data/`).",
        ),
        weight=0.26,
    ),
    DemoProject(
        name="dashboard-web",
        lang="ts",
        about="The admin dashboard: React 18, TypeScript, Vite, vitest and Testing Library.",
        test_cmd="npx vitest run",
        branches=("main", "main", "feat/orders-table", "fix/login-form"),
        parts=(
            Part(
                "the login form",
                "登录表单",
                "src/components/LoginForm.tsx",
                "handleSubmit",
                "src/components/LoginForm.test.tsx",
                _UI,
                (2, 3),
            ),
            Part(
                "the orders table",
                "订单列表",
                "src/components/OrdersTable.tsx",
                "toRows",
                "src/components/OrdersTable.test.tsx",
                _UI,
                (0, 1),
            ),
            Part(
                "the useOrders hook",
                "订单数据 hook",
                "src/hooks/useOrders.ts",
                "useOrders",
                "src/hooks/useOrders.test.ts",
                _UI_DATA,
                (0, 3),
            ),
            Part(
                "the API client",
                "接口客户端",
                "src/api/client.ts",
                "request",
                "src/api/client.test.ts",
                _UI_DATA,
                (3, 0),
            ),
            Part(
                "the date formatting",
                "日期格式化",
                "src/utils/formatDate.ts",
                "formatDate",
                "src/utils/formatDate.test.ts",
                _UI,
                (1,),
            ),
        ),
        conventions=(
            "Components are function components with typed props; no default exports.",
            "Tests use Testing Library queries by role, never by class name.",
            "Run `npx vitest run` and `npx tsc --noEmit` before pushing.",
        ),
        weight=0.22,
    ),
    DemoProject(
        name="deployctl",
        lang="py",
        about="A small CLI (Typer) that deploys our services and rolls them back.",
        test_cmd="pytest -q",
        branches=("main", "main", "feat/rollback-dry-run"),
        parts=(
            Part(
                "the deploy command",
                "部署命令",
                "deployctl/commands/deploy.py",
                "deploy",
                "tests/test_deploy.py",
                _CLI,
                (6, 7),
            ),
            Part(
                "the config loader",
                "配置加载",
                "deployctl/config.py",
                "load_config",
                "tests/test_config.py",
                _CLI,
                (6,),
            ),
            Part(
                "the rollback command",
                "回滚命令",
                "deployctl/commands/rollback.py",
                "rollback",
                "tests/test_rollback.py",
                _CLI,
                (7, 3),
            ),
            Part(
                "the health check",
                "健康检查",
                "deployctl/health.py",
                "wait_healthy",
                "tests/test_health.py",
                _CLI,
                (6, 0),
            ),
        ),
        conventions=(
            "Every command has `--dry-run`; tests run commands through Typer's CliRunner.",
            "Errors are one readable line for the user, a traceback only with `--debug`.",
        ),
        weight=0.16,
    ),
)
