"""The ScienceWorld player on the real JVM: one short episode per task shape it plays (train variations).

Marked ``sciworld_live`` (deselected by default; skipped without scienceworld or Java). One JVM at a time,
about 20 s in all with the JVM starts:

    COAT_DATA_DIR=<data dir> PYTHONPATH=. python -m pytest -q -m sciworld_live \\
        tests/planner/agents/test_sciworld_player_live.py
"""

from __future__ import annotations

import pytest

from planner.agents.sciworld import AgentConfig, ScienceWorldPlayer, select_variations
from scenes.sciworld import ScienceWorldEnv, java_version, split_variations

pytestmark = pytest.mark.sciworld_live

pytest.importorskip("scienceworld")
if not java_version():
    pytest.skip("ScienceWorld needs Java on PATH", allow_module_level=True)


@pytest.mark.parametrize(
    ("task", "variation", "answer"),
    [
        ("find-animal", 0, ""),
        ("lifespan-longest-lived-then-shortest-lived", 0, "longest: "),
        ("power-component-renewable-vs-nonrenewable-energy", 0, "solar panel"),  # carried outside
        ("test-conductivity-of-unknown-substances", 0, "nonconductive"),
        ("use-thermometer", 0, "below 100"),
        ("measure-melting-point-unknown-substance", 1, "still liquid"),  # a liquid: cooled, not heated
        ("chemistry-mix-paint-tertiary-color", 1, "green paint, then "),
        ("chemistry-mix", 0, "recipe: sodium chloride, water"),
        ("grow-plant", 1, ""),  # no pot has soil: dug with a shovel
        ("grow-fruit", 3, "grown apple"),
        ("inclined-plane-friction-unnamed-surfaces", 0, "-> unknown material H"),
        ("identify-life-stages-2", 0, "apple seed; apple tree in the seedling stage"),
    ],
)
def test_player_completes_a_train_episode(task: str, variation: int, answer: str) -> None:
    assert variation in split_variations(task, "train")
    with ScienceWorldEnv(task, simplification="easy", step_limit=150) as env:
        r = ScienceWorldPlayer(AgentConfig()).run(env, variation)
    assert r.completed and r.score == 100, (r.failure, r.transcript[-6:])
    assert r.shape != "change-state" and r.spec is not None and r.spec.task == task
    assert answer in r.answer


def test_player_walks_and_waters_without_easy() -> None:
    # no simplification: doors start closed, no teleport, flower pots do not water themselves
    with ScienceWorldEnv("grow-plant", simplification="", step_limit=150) as env:
        r = ScienceWorldPlayer(AgentConfig()).run(env, 0)
    assert r.completed and r.score == 100, (r.failure, r.transcript[-6:])
    sent = [t.split("\n")[0] for t in r.transcript]
    assert not any(c.startswith("> teleport") for c in sent) and any(c.startswith("> open door to") for c in sent)
    assert any(c.startswith("> pour ") for c in sent)  # the pot was watered


def test_thermometer_answer_is_read_again_next_to_the_boxes_without_easy() -> None:
    # train 38: 70-80 C where found (50 C threshold), about 50 C once walked to the bathroom: the box is chosen there
    with ScienceWorldEnv("use-thermometer", simplification="", step_limit=150) as env:
        r = ScienceWorldPlayer(AgentConfig()).run(env, 38)
    assert r.completed and r.score == 100, (r.failure, r.transcript[-6:])
    sent = [t.split("\n")[0] for t in r.transcript]
    assert "C where found" in r.answer and "C at the boxes" in r.answer
    assert sent[-1].startswith("> move unknown substance B to ")
    arrived = max(i for i, c in enumerate(sent) if c.startswith("> go to bathroom"))
    assert arrived < len(sent) - 2 and sent[-2].startswith("> use thermometer")


def test_split_sizes_match_scienceworld() -> None:
    with ScienceWorldEnv("find-plant") as env:
        env.reset(options={"variation": 0})
        for split in ("train", "dev", "test"):
            assert env.variations(split) == list(split_variations("find-plant", split)), split
    assert select_variations("find-plant", "test", limit=1) == [225]
