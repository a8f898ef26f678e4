"""A fixed, reproducible query mix over a generated corpus.

Queries must look like what people type (1-3 words, identifiers, CJK words) and mostly have
hits, or latency figures measure empty posting lists. So most queries are drawn from events
actually sampled from the corpus (words that co-occur in one event), the rest from the
generator's frequency buckets, as research/perf-baselines.md did. CJK queries are a category of
their own because recall, not only latency, is what separates engines on them.
"""

from __future__ import annotations

import calendar
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from . import corpus

CATEGORIES: tuple[str, ...] = ("common", "mid", "rare", "code", "cooccur", "cjk")

#: Tokens as unicode61 and tantivy's default tokenizer see them: runs of letters and digits.
_TOKEN = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]+)+\b")
_PASCAL = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_DOTTED = re.compile(r"\b[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+\b")
_KATAKANA = re.compile(r"^[\u30a0-\u30ff]+$")
_HAN = re.compile(r"^[\u4e00-\u9fff]+$")


@dataclass(frozen=True, slots=True)
class Query:
    """One benchmark query; filters use the search tool's names: source, project, since."""

    text: str
    category: str
    filters: dict = field(default_factory=dict)

    @property
    def words(self) -> list[str]:
        return self.text.split()

    @property
    def since_ms(self) -> int | None:
        """``since`` is a UTC date (YYYY-MM-DD); the corpus has no local time zone."""
        since = self.filters.get("since")
        if since is None:
            return None
        return calendar.timegm(time.strptime(since, "%Y-%m-%d")) * 1000


def cjk_queries(queries: list[Query]) -> list[Query]:
    return [q for q in queries if q.category == "cjk"]


def _sample_events(corpus_dir: Path, k: int, rng_seed: str) -> list[tuple]:
    """k events spread over the whole table, decoding only the lines kept."""
    info = corpus.load_info(corpus_dir)
    rng = random.Random(rng_seed)
    wanted = set(rng.sample(range(info.events), min(k, info.events)))
    out = []
    for i, line in enumerate(corpus.iter_event_lines(corpus_dir)):
        if i in wanted:
            out.append(tuple(orjson.loads(line)))
    return out


def _counts(n: int) -> dict[str, int]:
    cjk = max(30, round(n / 6))
    rest = n - cjk
    shares = {"common": 0.2, "mid": 0.15, "rare": 0.2, "code": 0.2, "cooccur": 0.25}
    counts = {c: int(rest * s) for c, s in shares.items()}
    counts["cooccur"] += rest - sum(counts.values())
    counts["cjk"] = cjk
    return counts


def query_mix(corpus_dir: Path, n: int = 240, seed: int = 7) -> list[Query]:
    """``n`` queries (at least 30 of them CJK), the same for the same corpus and seed.

    About 20 % of the non-CJK queries carry a filter taken from the event they were drawn from
    (its source, its project, or a date shortly before it), so filtered queries have hits too.
    """
    corpus_dir = Path(corpus_dir)
    info = corpus.load_info(corpus_dir)
    vocab = corpus.build_vocab(info.seed)
    rank = vocab.rank()
    rng = random.Random(f"queries:{seed}")
    events = [
        e
        for e in _sample_events(corpus_dir, 6000, f"sample:{seed}")
        if e[7] > 0 and e[5] in ("message", "tool_use", "tool_result", "meta")
    ]
    rng.shuffle(events)
    counts = _counts(n)
    seen: set[str] = set()
    out: list[Query] = []

    def add(text: str, category: str, source_event: tuple | None = None) -> bool:
        key = text.lower()
        if not text or key in seen:
            return False
        seen.add(key)
        out.append(Query(text, category, _filters(rng, source_event) if source_event else {}))
        return True

    def alpha(word: str) -> bool:
        return word.isascii() and word.isalpha() and len(word) >= 3

    head = [w for w in vocab.words[: vocab.head_end] if alpha(w)]
    mid = [w for w in vocab.words[vocab.head_end : vocab.mid_end] if alpha(w)]
    word_counts = {"common": (1, 1, 2, 2, 3), "mid": (1, 1, 2)}
    for category, pool in (("common", head), ("mid", mid)):
        i = 0
        while sum(q.category == category for q in out) < counts[category]:
            k = word_counts[category][i % len(word_counts[category])]
            add(" ".join(rng.sample(pool, k)), category)
            i += 1

    # Event-derived categories; the pools hold (words, event) candidates in sample order.
    tokens_of = {}
    for e in events:
        tokens_of[e[0]] = [t.lower() for t in _TOKEN.findall(e[1])]

    def english(e: tuple, lo: int, hi: int) -> list[str]:
        return [
            t for t in dict.fromkeys(tokens_of[e[0]]) if alpha(t) and lo <= rank.get(t, -1) < hi
        ]

    # Spread the filtered queries evenly over the event-derived ones (Bresenham-style).
    derived = counts["rare"] + counts["code"] + counts["cooccur"]
    step = min(1.0, round(0.2 * (n - counts["cjk"])) / max(1, derived))
    acc = 0.0

    ei = 0
    for category in ("rare", "code", "cooccur"):
        shape = {"rare": (1, 1, 2), "code": (1, 1, 2), "cooccur": (2, 2, 3)}[category]
        made = 0
        tries = 0
        while made < counts[category] and tries < 50 * len(events):
            tries += 1
            e = events[ei % len(events)]
            ei += 1
            k = shape[made % len(shape)]
            if category == "rare":
                tail = english(e, vocab.mid_end, len(vocab.words))
                if not tail:
                    continue
                words = [rng.choice(tail)]
                if k == 2:
                    others = [w for w in english(e, 0, len(vocab.words)) if w != words[0]]
                    if not others:
                        continue
                    words.append(rng.choice(others))
            elif category == "code":
                idents = _identifiers(e[1])
                if not idents:
                    continue
                words = [rng.choice(idents)]
                if k == 2:
                    others = english(e, 0, vocab.mid_end)
                    if not others:
                        continue
                    words.append(rng.choice(others))
            else:
                pool = english(e, 0, len(vocab.words))
                if len(pool) < k:
                    continue
                words = rng.sample(pool, k)
            with_filter = acc + step >= 1.0
            if add(" ".join(words), category, e if with_filter else None):
                made += 1
                acc = acc + step - 1.0 if with_filter else acc + step

    out += _cjk(rng, events, counts["cjk"], seen)
    return out


def _identifiers(text: str) -> list[str]:
    found = (
        _CAMEL.findall(text) + _PASCAL.findall(text) + _SNAKE.findall(text) + _DOTTED.findall(text)
    )
    return [w for w in dict.fromkeys(found) if len(w) >= 6]


def _filters(rng: random.Random, e: tuple) -> dict:
    k = rng.randrange(4)
    if k == 0:
        return {"source": e[2]}
    if k == 1:
        return {"project": e[3]}
    if k == 2:
        days = rng.randrange(0, 20)
        return {"since": time.strftime("%Y-%m-%d", time.gmtime(e[7] // 1000 - days * 86_400))}
    return {"source": e[2], "project": e[3]}


def _cjk(rng: random.Random, events: list[tuple], count: int, seen: set[str]) -> list[Query]:
    """Chinese words of 2-4 characters, katakana words, a little Korean; all found in events.

    A mix of lengths on purpose: two-character words are common in Chinese and are exactly
    what a trigram index cannot find.
    """
    zh = [
        w
        for w in dict.fromkeys(corpus.ZH_NOUNS + corpus.ZH_VERBS)
        if _HAN.match(w) and 2 <= len(w) <= 4
    ]
    ja = [w for w in dict.fromkeys(corpus.JA_NOUNS + corpus.JA_VERBS) if _KATAKANA.match(w)]
    ko = list(dict.fromkeys(corpus.KO_NOUNS))
    texts = [e[1] for e in events if corpus.mostly_cjk(e[1])]
    # (kind, share): two-char Han, longer Han, katakana, pairs, Korean.
    plan = [("zh2", 0.3), ("zh3", 0.25), ("ja", 0.3), ("pair", 0.1)]
    quotas = {k: int(count * s) for k, s in plan}
    quotas["ko"] = count - sum(quotas.values())
    out: list[Query] = []
    for kind, quota in quotas.items():
        made = 0
        for text in texts:
            if made >= quota:
                break
            if kind == "zh2":
                present = [w for w in zh if len(w) == 2 and w in text]
            elif kind == "zh3":
                present = [w for w in zh if len(w) >= 3 and w in text]
            elif kind == "ja":
                present = [w for w in ja if w in text]
            elif kind == "ko":
                present = [w for w in ko if w in text]
            else:
                present = [w for w in zh + ja if len(w) >= 3 and w in text]
            if kind == "pair":
                if len(present) < 2:
                    continue
                q = " ".join(rng.sample(present, 2))
            elif present:
                q = rng.choice(present)
            else:
                continue
            if q.lower() not in seen:
                seen.add(q.lower())
                out.append(Query(q, "cjk"))
                made += 1
    # A corpus too small for every kind still gets its CJK count from whatever Han words occur.
    for text in texts:
        if len(out) >= count:
            break
        for w in zh + ja:
            if w in text and w not in seen:
                seen.add(w)
                out.append(Query(w, "cjk"))
                break
    return out


def dump(queries: list[Query]) -> bytes:
    return orjson.dumps(
        [{"text": q.text, "category": q.category, "filters": q.filters} for q in queries]
    )
