"""Prose for one session: English or CJK sentences from template tables.

A template is a function of the session's ``Text``; its f-string draws from the rng left to
right, so the order of the tables and of the fields inside each template is part of the output.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .common import cap, lognorm_len, picker
from .context import Context
from .project import Project
from .vocab import JA_ADJS, JA_VERBS, KO_NOUNS, KO_VERBS, ZH_ADJS, ZH_CONJ, ZH_VERBS


class Text:
    """Text makers bound to one session's rng, project and language."""

    def __init__(self, ctx: Context, rng: random.Random, project: Project, lang: str) -> None:
        self.ctx = ctx
        self.rng = rng
        self.p = project
        self.lang = lang
        self.fresh: list[str] = []
        self.fi = 0
        self.idents = project.idents
        self.pick = picker(rng)
        # English sessions never draw a CJK sentence; the Korean table stands in.
        self.cjk_templates, self.cjk_index = _CJK.get(lang, _CJK["ko"])

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

    def phrase(self) -> str:
        return self.pick(self.ctx.phrases)

    def en_sentence(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.32:
            s = _EN[rng.randrange(len(_EN))](self)
        else:
            parts = rng.choices(self.ctx.phrases, k=self.pick((1, 2, 2, 3, 3, 4)))
            if r < 0.7:
                parts.insert(rng.randrange(len(parts) + 1), self.w())
            s = cap(" ".join(parts))
        return s + self.pick((".", ".", ".", "?", ":"))

    def en_prose(self, target: int) -> str:
        out: list[str] = []
        n = 0
        while n < target:
            s = self.en_sentence()
            out.append(s)
            n += len(s) + 1
        return " ".join(out)

    def cjk_sentence(self) -> str:
        templates = self.cjk_templates
        return templates[self.cjk_index(self.rng, len(templates))](self)

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
            return self.en_prose(lognorm_len(self.rng, median, sigma, 6000)), False
        return self.cjk_prose(lognorm_len(self.rng, median / 3, sigma, 3000)), True

    def description(self) -> str:
        if self.lang == "en":
            return cap(" ".join(self.rng.choices(self.ctx.phrases, k=1)))
        return self.cjk_sentence()


_Sentence = Callable[[Text], str]

#: English sentences that name the project's code; picked by ``randrange(9)``.
_EN: tuple[_Sentence, ...] = (
    lambda t: f"I'll check `{t.ident()}` in {t.pick(t.p.paths)} first",
    lambda t: f"The test `{t.pick(t.p.tests)}` fails with `{t.pick(t.p.errors)}`",
    lambda t: f"Let me look at how `{t.ident()}` handles the {t.w()} {t.phrase()}",
    lambda t: (
        f"Found it: `{t.pick(t.p.camel + t.p.snake)}` is called from {t.pick(t.p.paths)}"
        f" but the {t.w()} is never set"
    ),
    lambda t: (
        f"This happens because `{t.pick(t.p.dotted)}` returns None when the {t.w()} {t.w()}"
        " is missing"
    ),
    lambda t: f"Updated {t.pick(t.p.paths)} so that `{t.ident()}` {t.phrase()}",
    lambda t: f"Commit {t.pick(t.p.hashes)[:7]} {t.phrase()}",
    lambda t: f"Set {t.pick(t.p.envs)} before running `{t.ident()}`, {t.phrase()}",
    lambda t: f"{cap(t.phrase())} {t.w()} in `{t.ident()}`",
)


def _zh(t: Text) -> str:
    return t.pick(t.ctx.zh)


def _ja(t: Text) -> str:
    return t.pick(t.ctx.ja)


def _ko(t: Text) -> str:
    return t.pick(KO_NOUNS)


def _zh_cause(t: Text) -> str:
    return f"{_zh(t)}的{_zh(t)}{t.pick(ZH_ADJS)}，可能是{_zh(t)}{t.pick(ZH_VERBS)}导致的。"


def _zh_both(t: Text) -> str:
    return f"{t.pick(ZH_CONJ)}{_zh(t)}和{_zh(t)}都要{t.pick(ZH_VERBS)}，{_zh(t)}{t.pick(ZH_ADJS)}。"


# Sentences that quote code are kept rare so that these texts stay mostly CJK.
_ZH: tuple[_Sentence, ...] = (
    lambda t: (
        f"我们需要{t.pick(ZH_VERBS)}{_zh(t)}的{_zh(t)}，{t.pick(ZH_CONJ)}{_zh(t)}{t.pick(ZH_ADJS)}。"
    ),
    lambda t: f"请帮我{t.pick(ZH_VERBS)}一下{_zh(t)}{_zh(t)}。",
    lambda t: f"{_zh(t)}{_zh(t)}出现了{_zh(t)}，先{t.pick(ZH_VERBS)}{_zh(t)}。",
    lambda t: f"已经{t.pick(ZH_VERBS)}了{_zh(t)}，现在{_zh(t)}{t.pick(ZH_ADJS)}。",
    lambda t: f"这个{_zh(t)}在 `{t.ident()}` 里{t.pick(ZH_VERBS)}失败，{t.pick(t.p.errors)}。",
    *(_zh_cause, _zh_both) * 5,
    _zh_cause,
)


def _ja_because(t: Text) -> str:
    return f"{_ja(t)}の{_ja(t)}が{t.pick(JA_ADJS)}ので、{_ja(t)}を{t.pick(JA_VERBS)}します。"


def _ja_first(t: Text) -> str:
    return f"まず{_ja(t)}を確認して、{_ja(t)}を{t.pick(JA_VERBS)}しました。"


def _ja_done(t: Text) -> str:
    return f"{_ja(t)}と{_ja(t)}の{t.pick(JA_VERBS)}が終わりました。"


_JA: tuple[_Sentence, ...] = (
    lambda t: f"{_ja(t)}の{_ja(t)}を{t.pick(JA_VERBS)}してください。",
    lambda t: f"{_ja(t)}で `{t.pick(t.p.errors)}` が発生しました。",
    _ja_because,
    _ja_first,
    lambda t: (
        f"`{t.ident()}` の{_ja(t)}は{t.pick(JA_ADJS)}です。{_ja(t)}も{t.pick(JA_VERBS)}する必要があります。"
    ),
    *(_ja_done, _ja_because, _ja_first) * 3,
)

_KO: tuple[_Sentence, ...] = (
    lambda t: f"{_ko(t)}의 {_ko(t)}를 {t.pick(KO_VERBS)}해 주세요.",
    lambda t: f"{_ko(t)}에서 `{t.pick(t.p.errors)}` 오류가 발생했습니다.",
    lambda t: f"{_ko(t)}와 {_ko(t)}를 {t.pick(KO_VERBS)}했습니다.",
)

_Index = Callable[[random.Random, int], int]

#: Per language, the sentence table and how an entry is drawn (the draw is part of the output).
_CJK: dict[str, tuple[tuple[_Sentence, ...], _Index]] = {
    "zh": (_ZH, lambda rng, n: int(rng.random() * n)),
    "ja": (_JA, lambda rng, n: int(rng.random() * n)),
    "ko": (_KO, lambda rng, n: rng.randrange(n)),
}
