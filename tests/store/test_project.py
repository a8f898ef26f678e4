"""Project names from working directories, written by this machine or by another system."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from origin_store.project import project_of

CASES = [
    ("/home/me/billing-api", "billing-api"),
    ("/home/me/billing-api/", "billing-api"),
    ("C:\\Users\\me\\billing-api", "billing-api"),
    ("C:/Users/me/billing-api/", "billing-api"),
    ("\\\\build-box\\src\\billing-api", "billing-api"),
    ("C:\\", "C:\\"),
    ("/", "/"),
    ("", None),
]


@pytest.mark.parametrize(("cwd", "project"), CASES)
def test_a_path_from_any_system_names_its_last_component(
    cwd: str, project: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # Inside a git repository of this machine: a Windows path read here must not be taken
    # for a relative path under it (which would name the repository instead).
    (tmp_path / "here-repo" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "here-repo")
    project_of.cache_clear()
    assert project_of(cwd) == project


def test_a_directory_of_this_machine_is_named_by_its_git_root(tmp_path: Path):
    (tmp_path / "billing-api" / ".git").mkdir(parents=True)
    (tmp_path / "billing-api" / "src" / "deep").mkdir(parents=True)
    project_of.cache_clear()
    assert project_of(os.fspath(tmp_path / "billing-api" / "src" / "deep")) == "billing-api"
