"""Fixtures the planner tests share: the knowledge base of the reference data and its offline reader (word overlap,
no encoder), one of each per test module, as each module made its own before."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.knowledge import KnowledgeBase, load_knowledge
from planner.knowledge.alfred import object_types
from planner.understanding import TaskReader


@pytest.fixture(scope="module")
def kb(data_dir: Path) -> KnowledgeBase:
    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def reader(kb: KnowledgeBase, data_dir: Path) -> TaskReader:
    return TaskReader(kb, object_types=object_types(str(data_dir)), encoder=None)
