"""The reader's target classifier: a request that names no target, while a role of it acts on one, gets the target
the labelled requests like it name ("toast pls": the bread), so its goal is the target's state, not the role's object
brought to the robot; a request that names its target, or whose roles act on none, is left as read."""

from __future__ import annotations

import pytest

from planner.knowledge import load_knowledge
from planner.understanding import TaskReader
from planner.understanding.examples import Request

from .test_understanding import _WordsEncoder


def _toast(i: int, text: str) -> Request:
    return Request(id=f"e{i}", request=text, scene="embedded/kitchen-v0", kind="task", roles=("heating(source)",),
                   targets=("Bread",), acceptable={"heating(source)": ("Toaster",)})


EXAMPLES = [_toast(i, t) for i, t in enumerate(["toast pls", "toast now pls", "quick toast pls", "toast for me"])]


@pytest.fixture(scope="module")
def kb(data_dir):
    return load_knowledge(data_dir)


@pytest.fixture
def alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither a COAT task nor a worked example may name the target: only the classifier."""
    import planner.understanding.evidence as evidence_module

    monkeypatch.setenv("COAT_READER_CACHE", "off")
    for name in ("EXAMPLE", "EXAMPLE_NO_FRAME", "NEAREST", "PARAPHRASE"):
        monkeypatch.setattr(evidence_module, name, 2.0)


def test_a_request_naming_no_target_gets_the_classifiers(kb, alone) -> None:
    r = TaskReader(kb, encoder=_WordsEncoder(), examples=EXAMPLES)
    spec = r.read("toast pls now").spec
    assert spec is not None and [t.types for t in spec.targets] == [("Bread",)]
    assert any(g.item == "target" and g.prop == "isCooked" for g in spec.goals), spec.goals
    assert not any(g.relation == "close_to" and g.other == "agent" for g in spec.goals)
    r.targets_learned = False  # the rules alone: the toaster is only brought
    spec = r.read("toast pls now").spec
    assert spec is not None and not spec.targets and "brought" in spec.note


def test_a_named_target_and_a_role_that_acts_on_none_are_left_as_read(kb, alone) -> None:
    r = TaskReader(kb, encoder=_WordsEncoder(), examples=EXAMPLES)
    spec = r.read("toast the potato pls").spec
    assert spec is not None and [t.types for t in spec.targets] == [("Potato",)]
    lamp = [Request(id=f"l{i}", request=t, scene="embedded/kitchen-v0", kind="task", roles=("light_source",),
                    targets=("Candle",), acceptable={"light_source": ("Candle",)})
            for i, t in enumerate(["light pls", "light now pls", "more light pls"])]
    spec = TaskReader(kb, encoder=_WordsEncoder(), examples=lamp).read("turn on the light pls").spec
    assert spec is not None and not spec.targets  # switching a light on acts on no target
