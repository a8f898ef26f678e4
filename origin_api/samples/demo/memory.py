"""The demo's memory and instruction files: what the agents keep beside their sessions.

Claude Code's ``CLAUDE.md`` and per-project ``memory/MEMORY.md``, Codex's, Grok's and OpenCode's
``AGENTS.md``, Gemini CLI's ``GEMINI.md``, Qwen Code's ``QWEN.md`` and a project's managed
``MEMORY.md``, Copilot CLI's ``copilot-instructions.md``: the project conventions a person
writes for their agents, in the places each agent reads them under its own home
(origin_store/parsers/memory.py).
"""

from __future__ import annotations

from .projects import PROJECTS

DAY_MS = 86_400_000

_USER_RULES = """# My preferences

- Answer in the language I write in (English or 中文).
- Run the tests before you say something is fixed, and show me the command you ran.
- Small commits with a subject under 72 characters; never push without asking.
- Don't add dependencies without asking; say which one and why.
"""


def _project_memory(index: int) -> str:
    p = PROJECTS[index]
    rules = "\n".join(f"- {rule}" for rule in p.conventions)
    parts = "\n".join(f"- {part.en} (`{part.path}`, tests in `{part.test}`)" for part in p.parts)
    return (
        f"# {p.name}\n\n{p.about}\n\n## Conventions\n\n{rules}\n\n## Where things are\n\n{parts}\n"
    )


def _agents_md() -> str:
    sections = []
    for p in PROJECTS:
        rules = "\n".join(f"- {rule}" for rule in p.conventions)
        sections.append(f"## {p.name} (`{p.cwd}`)\n\n{p.about}\n\n{rules}")
    return "# Working on my projects\n\n" + "\n\n".join(sections) + "\n"


def memory_files(anchor_ms: int) -> list[tuple[str, str, int]]:
    """(path under the demo's home, text, mtime in ms) of every memory file."""
    day = anchor_ms - anchor_ms % DAY_MS
    out = [("claude/CLAUDE.md", _USER_RULES, day - 41 * DAY_MS + 10 * 3_600_000)]
    for i, p in enumerate(PROJECTS[:3]):
        slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in p.cwd)
        when = day - (30 - 9 * i) * DAY_MS + 15 * 3_600_000
        out.append((f"claude/projects/{slug}/memory/MEMORY.md", _project_memory(i), when))
    out.append(("codex/AGENTS.md", _agents_md(), day - 20 * DAY_MS + 11 * 3_600_000))
    out.append((".grok/AGENTS.md", _agents_md(), day - 12 * DAY_MS + 9 * 3_600_000))
    out.append((".gemini/GEMINI.md", _USER_RULES, day - 33 * DAY_MS + 14 * 3_600_000))
    out.append((".config/opencode/AGENTS.md", _agents_md(), day - 27 * DAY_MS + 10 * 3_600_000))
    rules = _USER_RULES.replace("# My preferences", "# Instructions for Copilot")
    out.append((".copilot/copilot-instructions.md", rules, day - 18 * DAY_MS + 16 * 3_600_000))
    out.append((".qwen/QWEN.md", _USER_RULES, day - 15 * DAY_MS + 11 * 3_600_000))
    p = PROJECTS[0]
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in p.cwd)
    when = day - 6 * DAY_MS + 17 * 3_600_000
    out.append((f".qwen/projects/{slug}/memory/MEMORY.md", _project_memory(0), when))
    return out
