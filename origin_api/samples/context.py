"""What every session of one seed shares: the vocabulary, the phrase pool and 50 projects."""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from .common import cap
from .project import Project, build_project
from .vocab import JA_NOUNS, KO_NOUNS, PROJECT_PREFIX, PROJECT_SUFFIX, ZH_NOUNS, Vocab, build_vocab


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


def _phrases(rng: random.Random, vocab: Vocab) -> list[str]:
    """Runs of 2-5 Zipfian words: most of the text is assembled from these."""
    draws = rng.choices(vocab.words, cum_weights=vocab.cum, k=240_000)
    phrases: list[str] = []
    i = 0
    while i < len(draws):
        k = rng.choice((2, 3, 3, 4, 5))
        phrases.append(" ".join(draws[i : i + k]))
        i += k
    return phrases


@functools.lru_cache(maxsize=2)
def build_context(seed: int = 42) -> Context:
    """The shared material for one seed: vocabulary, phrase pools and 50 projects."""
    vocab = build_vocab(seed)
    rng = random.Random(f"context:{seed}")
    phrases = _phrases(rng, vocab)
    tail = vocab.words[vocab.mid_end :]
    names = [f"{a}-{b}" for a in PROJECT_PREFIX for b in PROJECT_SUFFIX]
    rng.shuffle(names)
    names = sorted(names[:49]) + ["demo-app"]
    rng.shuffle(names)
    projects = [build_project(rng, name, tail, phrases) for name in names]
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(projects))]
    base = "\n\n".join(cap(" ".join(rng.choices(phrases, k=12))) + "." for _ in range(40))
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
