"""Every word in every script, through Searcher.find over a real store and tantivy index: the
unindexed tail and the index find exactly the same events for each rule's positive and negative
cases, and the snippet brackets the word whole, as written.

Marks are letters in every script; invisible characters inside a word do not split it (a
zero-width space does); an emoji sequence is one symbol; operators are words in code.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from origin_search import Filters, Searcher, clauses, matches, open_searcher, snippet
from origin_search.analyzer import tokens
from origin_store import Store

TEXTS: dict[str, str] = {
    # combining marks are letters
    "hi_kaam": "काम बंद करो",
    "hi_kam": "कम पानी",
    "bn_kaam": "এটা কাম",
    "bn_kam": "এটা কম",
    "ta_pal": "பல் வலி",
    "ta_pala": "பல நாட்கள்",
    "si_sri": "ශ්\u200dරී ලංකාව",  # with the joiner keyboards type
    "bo_king": "རྒྱལ་པོའི་ཕོ་བྲང་",  # the king's palace: པོ with the ending འི
    "bo_tibet": "བོད་ཡིག",
    # invisible characters join; a zero-width space separates
    "en_soft": "the soft\u00adware update",
    "en_joiner": "data\u2060base migration",
    "ar_tatweel": "هذا كتـــاب جديد",
    "fa_zwnj": "من می\u200cخواهم بروم",
    "en_zwsp": "zero\u200bwidth",
    # emoji sequences are one symbol
    "flags": "trip 🇺🇸🇯🇵",
    "flag_sj": "Svalbard 🇸🇯",
    "keycap": "press 1\ufe0f\u20e3 now",
    "digit": "press 1 now",
    "scientist_toned": "hello 👨🏽\u200d🔬",
    "scientist": "hello 👨\u200d🔬",
    "thumbs": "ok 👍🏽",
    # operators are words in code
    "cpp": "written in C++ and C#",
    "plain_c": "Plain C only",
    "incr": "use i++ here",
    "eye": "I said so",
    "arrows": "a -> b => x || y",
}

SEARCHES: list[tuple[str, set[str]]] = [
    ("काम", {"hi_kaam"}),
    ("कम", {"hi_kam"}),  # not काम: the vowel sign is a letter
    ("কাম", {"bn_kaam"}),
    ("কম", {"bn_kam"}),
    ("பல்", {"ta_pal"}),
    ("பல", {"ta_pala"}),  # not பல்: the pulli is a letter
    ("ශ්\u200dරී", {"si_sri"}),
    ("ශ්රී", {"si_sri"}),  # typed without the joiner
    ("ශර", set()),  # without its marks, another word
    ("རྒྱལ་པོ", {"bo_king"}),  # the syllable without its attached ending
    ("རྒྱལ་པོའི", {"bo_king"}),
    ("ཕོ་བྲང", {"bo_king"}),
    ("པ", set()),  # not the letter without its vowel sign
    ("བོད", {"bo_tibet"}),
    ("software", {"en_soft"}),
    ("soft", set()),  # the soft hyphen does not split the word
    ("database", {"en_joiner"}),
    ("base", set()),
    ("كتاب", {"ar_tatweel"}),
    ("میخواهم", {"fa_zwnj"}),
    ("می\u200cخواهم", {"fa_zwnj"}),
    ("zero", {"en_zwsp"}),  # a zero-width space separates words
    ("width", {"en_zwsp"}),
    ("🇸🇯", {"flag_sj"}),  # not inside 🇺🇸🇯🇵
    ("🇺🇸", {"flags"}),
    ("🇯🇵", {"flags"}),
    ("1\ufe0f\u20e3", {"keycap"}),
    ("1", {"digit"}),  # the keycap is not the digit
    ("👨\u200d🔬", {"scientist", "scientist_toned"}),  # finds its toned forms
    ("👨🏽\u200d🔬", {"scientist_toned"}),
    ("👨", set()),  # a part of a sequence is not the sequence
    ("👍", {"thumbs"}),
    ("C++", {"cpp"}),  # not "Plain C"
    ("C#", {"cpp"}),
    ("C", {"cpp", "plain_c"}),
    ("i++", {"incr"}),  # not every "I"
    ("I", {"incr", "eye"}),
    ("->", {"arrows"}),
    ("=>", {"arrows"}),
    ("||", {"arrows"}),
    ("a->b", {"arrows"}),
    ("x=>y", set()),
]

#: The snippet of a text for a query: the word bracketed whole, as written.
SNIPPETS: list[tuple[str, str, str]] = [
    ("en_soft", "software", "the [soft\u00adware] update"),
    ("en_joiner", "database", "[data\u2060base] migration"),
    ("ar_tatweel", "كتاب", "هذا [كتـــاب] جديد"),
    ("si_sri", "ශ්රී", "[ශ්\u200dරී] ලංකාව"),
    ("fa_zwnj", "میخواهم", "من [می\u200cخواهم] بروم"),
    ("bo_king", "རྒྱལ་པོ", "[རྒྱལ་པོ]འི་ཕོ་བྲང་"),
    ("scientist_toned", "👨\u200d🔬", "hello [👨🏽\u200d🔬]"),
    ("flags", "🇯🇵", "trip 🇺🇸[🇯🇵]"),
    ("keycap", "1\ufe0f\u20e3", "press [1\ufe0f\u20e3] now"),
    ("thumbs", "👍", "ok [👍🏽]"),
    ("cpp", "C++", "written in [C++] and C#"),
    ("cpp", "C#", "written in C++ and [C#]"),
    ("arrows", "=>", "a -> b [=>] x || y"),
]


def _put_events(searcher: Searcher) -> None:
    store = searcher.store

    def work(txn: Any) -> None:
        for n, (id_, text) in enumerate(TEXTS.items()):
            event = {
                "id": id_,
                "kind": "message",
                "role": "user",
                "source": "claude-code",
                "project": "demo",
                "session": "s1",
                "time": 1_000_000 + n,
                "text": text,
            }
            item: Any = {"t": "event", "id": id_}
            store.put(txn, "events", id_.encode(), event)
            store.feed_append(txn, [item])

    store.write(work)


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[set[str], ...]]]:
    """What each query finds from the unindexed tail, then from the index."""
    path = tmp_path_factory.mktemp("words")
    with Store.open(path) as store:
        searcher = open_searcher(store, path / "index")
        writer = searcher.index.writer()  # held: every event stays in the unindexed tail
        try:
            _put_events(searcher)
            tail = {q: _ids(searcher, q) for q, _ in SEARCHES}
        finally:
            writer.close()
        assert searcher.snapshot().tail == []
        assert searcher.index.count() == len(TEXTS)
        yield {q: (tail[q], _ids(searcher, q)) for q, _ in SEARCHES}


def _ids(searcher: Searcher, query: str) -> set[str]:
    cl = clauses(query)
    assert cl, query
    return set(searcher.find(cl, Filters(doc="event"), 100))


@pytest.mark.parametrize(("query", "expected"), SEARCHES, ids=[q for q, _ in SEARCHES])
def test_each_rule_finds_exactly(
    found: dict[str, tuple[set[str], set[str]]], query: str, expected: set[str]
) -> None:
    from_tail, from_index = found[query]
    assert from_tail == expected
    assert from_index == expected


@pytest.mark.parametrize(("id_", "query", "expected"), SNIPPETS, ids=[q for _, q, _ in SNIPPETS])
def test_the_snippet_brackets_the_word_whole(id_: str, query: str, expected: str) -> None:
    assert snippet(TEXTS[id_], clauses(query)) == expected


# --- properties ---------------------------------------------------------------------------

WORDS = st.sampled_from(
    ["software", "database", "काम", "नमस्ते", "কম্পিউটার", "பல்கலைக்கழகம்", "ශ්රී", "كتاب", "خواهم"]
)
INVISIBLE = st.sampled_from(["\u00ad", "\u2060", "\ufeff", "\u0640", "\u200c", "\u200d", "\ufe0f"])
BEFORE = st.sampled_from(["", " ", "see ", ". ", "数据"])
AFTER = st.sampled_from(["", " ", " now", " .", "数据"])


@settings(max_examples=300, deadline=None)
@given(WORDS, st.data(), INVISIBLE, BEFORE, AFTER)
def test_an_invisible_character_inside_a_word_does_not_split_it(
    word: str, data: st.DataObject, invisible: str, before: str, after: str
) -> None:
    # before a letter (between a letter and its mark it would stop NFKC composing them)
    places = [i for i in range(1, len(word)) if unicodedata.category(word[i])[0] == "L"]
    i = data.draw(st.sampled_from(places))
    written = word[:i] + invisible + word[i:]
    assert tokens(written) == tokens(word)
    text = before + written + after
    assert matches(text, clauses(word))
    assert matches(text, clauses(written))
    assert not matches(text, clauses(word[:i]))  # the part before it is no word of its own


MARKED = st.sampled_from(["काम", "नमस्ते", "কাম", "কম্পিউটার", "பல்", "ශ්රී", "རྒྱལ་པོ", "తెలుగు"])


@settings(max_examples=200, deadline=None)
@given(MARKED, st.data())
def test_a_word_without_one_of_its_marks_is_another_word(word: str, data: st.DataObject) -> None:
    marks = [i for i, ch in enumerate(word) if unicodedata.category(ch)[0] == "M"]
    i = data.draw(st.sampled_from(marks))
    stripped = word[:i] + word[i + 1 :]
    assert not matches(stripped, clauses(word))
    assert not matches(word, clauses(stripped))


INDICATORS = "🇺🇸🇯🇵🇬🇧"  # U S J P G B
PIECES = st.lists(st.sampled_from([*INDICATORS, " ", "x"]), max_size=16).map("".join)


def _flags(text: str) -> set[str]:
    """The flags a reader sees: each run of regional indicators read in pairs from its start."""
    out: set[str] = set()
    run = ""
    for ch in text + " ":
        if ch in INDICATORS:
            run += ch
            continue
        out.update(run[k : k + 2] for k in range(0, len(run) - 1, 2))
        run = ""
    return out


@settings(max_examples=400, deadline=None)
@given(PIECES, st.sampled_from(INDICATORS), st.sampled_from(INDICATORS))
def test_a_flag_is_found_only_where_a_reader_sees_it(text: str, first: str, second: str) -> None:
    flag = first + second
    assert matches(text, clauses(flag)) == (flag in _flags(text))
