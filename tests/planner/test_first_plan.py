"""The first plan of a process: what it must not load."""

from __future__ import annotations


def test_a_coat_task_is_planned_without_the_reader() -> None:
    """A text that is one of COAT's tasks gets its library spec at once: no reader is built, so no encoder loads."""
    import planner.scene_planner as sp
    from planner.api import plan

    sp._READERS.clear()
    p = plan("Cut  Apple", "embedded/kitchen-v0", llm=None)
    assert p.feasible and p.reading is not None and p.reading.method == "exact"
    assert p.reading.closest == ("cut apple",) and not sp._READERS
