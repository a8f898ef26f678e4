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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from . import corpus

if TYPE_CHECKING:
    from origin_api.samples import Vocab

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

    One random stream feeds every category in a fixed order (vocabulary, event-derived, CJK):
    runs before and after a change are compared, so the draws must never be reordered.
    """
    corpus_dir = Path(corpus_dir)
    info = corpus.load_info(corpus_dir)
    vocab = corpus.build_vocab(info.seed)
    rng = random.Random(f"queries:{seed}")
    events = _searchable_events(corpus_dir, seed)
    rng.shuffle(events)
    counts = _counts(n)
    mix = _Mix(rng)
    _add_vocab_queries(mix, vocab, counts)
    _add_event_queries(mix, vocab, events, counts, n)
    mix.queries += _cjk(rng, events, counts["cjk"], mix.seen)
    return mix.queries


def _searchable_events(corpus_dir: Path, seed: int) -> list[tuple]:
    """Sampled events with a timestamp and a kind whose text is indexed.

    Only these can yield queries with hits and a usable ``since`` filter.
    """
    return [
        e
        for e in _sample_events(corpus_dir, 6000, f"sample:{seed}")
        if e[7] > 0 and e[5] in ("message", "tool_use", "tool_result", "meta")
    ]


def _is_plain_word(word: str) -> bool:
    """ASCII letters only, 3 or more: a word every engine tokenizes the same way."""
    return word.isascii() and word.isalpha() and len(word) >= 3


@dataclass(slots=True)
class _Mix:
    """The queries made so far, deduplicated case-insensitively across all categories.

    A repeated query would time a warm cache, so a text already taken is refused.
    """

    rng: random.Random
    seen: set[str] = field(default_factory=set)
    queries: list[Query] = field(default_factory=list)

    def add(self, text: str, category: str, source_event: tuple | None = None) -> bool:
        """Add ``text`` unless empty or seen; a ``source_event`` gives it filters from that event."""
        key = text.lower()
        if not text or key in self.seen:
            return False
        self.seen.add(key)
        filters = _filters(self.rng, source_event) if source_event else {}
        self.queries.append(Query(text, category, filters))
        return True

    def count(self, category: str) -> int:
        return sum(q.category == category for q in self.queries)


#: Words per query, cycled, for the categories drawn straight from the vocabulary's buckets.
_VOCAB_SHAPES: dict[str, tuple[int, ...]] = {"common": (1, 1, 2, 2, 3), "mid": (1, 1, 2)}


def _add_vocab_queries(mix: _Mix, vocab: Vocab, counts: dict[str, int]) -> None:
    """ "common" and "mid" queries: random words from the head and middle frequency buckets.

    These need no event: every bucket word occurs often enough in the corpus to have hits.
    """
    head = [w for w in vocab.words[: vocab.head_end] if _is_plain_word(w)]
    mid = [w for w in vocab.words[vocab.head_end : vocab.mid_end] if _is_plain_word(w)]
    for category, pool in (("common", head), ("mid", mid)):
        shape = _VOCAB_SHAPES[category]
        i = 0
        while mix.count(category) < counts[category]:
            k = shape[i % len(shape)]
            mix.add(" ".join(mix.rng.sample(pool, k)), category)
            i += 1


class _EventWords:
    """Picks query words out of one event, so the words of a query co-occur and it has a hit.

    Each picker returns None when the event lacks what its category needs; the caller then
    moves on to the next event.
    """

    def __init__(self, events: list[tuple], vocab: Vocab) -> None:
        self._tokens = {e[0]: [t.lower() for t in _TOKEN.findall(e[1])] for e in events}
        self._rank = vocab.rank()
        self._mid_end = vocab.mid_end
        self._size = len(vocab.words)

    def english(self, e: tuple, lo: int, hi: int) -> list[str]:
        """The event's distinct plain words whose vocabulary rank is in ``[lo, hi)``."""
        return [
            t
            for t in dict.fromkeys(self._tokens[e[0]])
            if _is_plain_word(t) and lo <= self._rank.get(t, -1) < hi
        ]

    def rare(self, rng: random.Random, e: tuple, k: int) -> list[str] | None:
        """A tail-bucket word, plus for ``k == 2`` any other word of the same event."""
        tail = self.english(e, self._mid_end, self._size)
        if not tail:
            return None
        words = [rng.choice(tail)]
        if k == 2:
            others = [w for w in self.english(e, 0, self._size) if w != words[0]]
            if not others:
                return None
            words.append(rng.choice(others))
        return words

    def code(self, rng: random.Random, e: tuple, k: int) -> list[str] | None:
        """An identifier, plus for ``k == 2`` a common or mid word of the same event."""
        idents = _identifiers(e[1])
        if not idents:
            return None
        words = [rng.choice(idents)]
        if k == 2:
            others = self.english(e, 0, self._mid_end)
            if not others:
                return None
            words.append(rng.choice(others))
        return words

    def cooccur(self, rng: random.Random, e: tuple, k: int) -> list[str] | None:
        """``k`` distinct words of any frequency from the same event."""
        pool = self.english(e, 0, self._size)
        if len(pool) < k:
            return None
        return rng.sample(pool, k)


#: Words per query, cycled by queries made, for the categories drawn from sampled events.
_EVENT_SHAPES: dict[str, tuple[int, ...]] = {
    "rare": (1, 1, 2),
    "code": (1, 1, 2),
    "cooccur": (2, 2, 3),
}


class _FilterSpread:
    """Decides which event-derived queries carry a filter, spread evenly (Bresenham-style).

    Even spacing keeps each category's share of filtered queries close to the overall 20 %.
    """

    def __init__(self, counts: dict[str, int], n: int) -> None:
        derived = counts["rare"] + counts["code"] + counts["cooccur"]
        self._step = min(1.0, round(0.2 * (n - counts["cjk"])) / max(1, derived))
        self._acc = 0.0

    def due(self) -> bool:
        return self._acc + self._step >= 1.0

    def advance(self, filtered: bool) -> None:
        """Count one query made; only made queries move the spread, not refused ones."""
        self._acc = self._acc + self._step - 1.0 if filtered else self._acc + self._step


def _add_event_queries(
    mix: _Mix, vocab: Vocab, events: list[tuple], counts: dict[str, int], n: int
) -> None:
    """ "rare", "code" and "cooccur" queries, each from one sampled event (taken in turn).

    The categories share one walk over the events, so each starts where the previous stopped.
    """
    words = _EventWords(events, vocab)
    pickers = {"rare": words.rare, "code": words.code, "cooccur": words.cooccur}
    spread = _FilterSpread(counts, n)
    cursor = 0
    for category in ("rare", "code", "cooccur"):
        cursor = _add_event_category(
            mix, category, pickers[category], events, counts[category], spread, cursor
        )


def _add_event_category(
    mix: _Mix,
    category: str,
    pick: Callable[[random.Random, tuple, int], list[str] | None],
    events: list[tuple],
    quota: int,
    spread: _FilterSpread,
    cursor: int,
) -> int:
    """Add up to ``quota`` queries of one category, walking events from ``cursor``.

    Gives up after 50 passes' worth of tries, so a corpus lacking the category cannot hang
    the benchmark. Returns where the walk stopped.
    """
    shape = _EVENT_SHAPES[category]
    made = 0
    tries = 0
    while made < quota and tries < 50 * len(events):
        tries += 1
        e = events[cursor % len(events)]
        cursor += 1
        picked = pick(mix.rng, e, shape[made % len(shape)])
        if picked is None:
            continue
        filtered = spread.due()
        if mix.add(" ".join(picked), category, e if filtered else None):
            made += 1
            spread.advance(filtered)
    return cursor


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
    candidates = {
        "zh2": [w for w in zh if len(w) == 2],
        "zh3": [w for w in zh if len(w) >= 3],
        "ja": ja,
        "ko": ko,
        "pair": [w for w in zh + ja if len(w) >= 3],
    }
    texts = [e[1] for e in events if corpus.mostly_cjk(e[1])]
    out: list[Query] = []
    for kind, quota in _cjk_quotas(count).items():
        out += _cjk_of_kind(rng, kind, candidates[kind], quota, texts, seen)
    out += _cjk_fill(zh + ja, count - len(out), texts, seen)
    return out


def _cjk_quotas(count: int) -> dict[str, int]:
    """Queries per kind: two-char Han, longer Han, katakana, pairs, and Korean takes the rest.

    The order of the kinds is the order they are drawn in.
    """
    plan = [("zh2", 0.3), ("zh3", 0.25), ("ja", 0.3), ("pair", 0.1)]
    quotas = {k: int(count * s) for k, s in plan}
    quotas["ko"] = count - sum(quotas.values())
    return quotas


def _cjk_of_kind(
    rng: random.Random,
    kind: str,
    candidates: list[str],
    quota: int,
    texts: list[str],
    seen: set[str],
) -> list[Query]:
    """Up to ``quota`` new queries of one kind, each made of candidate words found in one text.

    A "pair" query is two words from the same text, so it has a hit when both must match.
    """
    out: list[Query] = []
    for text in texts:
        if len(out) >= quota:
            break
        present = [w for w in candidates if w in text]
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
    return out


def _cjk_fill(words: list[str], missing: int, texts: list[str], seen: set[str]) -> list[Query]:
    """The first unseen Han or katakana word of each text, until ``missing`` are made.

    A corpus too small for every kind still gets its CJK count from whatever words occur.
    """
    out: list[Query] = []
    for text in texts:
        if len(out) >= missing:
            break
        for w in words:
            if w in text and w not in seen:
                seen.add(w)
                out.append(Query(w, "cjk"))
                break
    return out


def dump(queries: list[Query]) -> bytes:
    return orjson.dumps(
        [{"text": q.text, "category": q.category, "filters": q.filters} for q in queries]
    )
