"""ScienceWorldEnv's code paths with a scripted backend (no JVM), plus the pure task/tree helpers.

The scripted replies are ScienceWorld 1.2.3's own wording, copied from live runs (see
test_sciworld_live.py, which checks the same behaviour against the real JVM).
"""

from __future__ import annotations

from typing import Any

import pytest

from planner.errors import ConfigError, DependencyNotInstalled, ResetNeeded, SimulatorError
from scenes.base import Action, SceneObs
from scenes.sciworld import (
    TASKS,
    ScienceWorldEnv,
    broken_devices,
    check_simplification,
    flatten_tree,
    is_failure,
    parse_choices,
    resolve_task,
    substitute_variations,
    tasks,
)
from scenes.sciworld import env as sw_env

protocol = pytest.importorskip("py4j.protocol")

AMBIGUOUS = (
    "Ambiguous request: Please enter the number for the action you intended (or blank to cancel):\n"
    "0:\tpick up wood cup (in art studio)\n1:\tpick up wood cup (in table, in art studio)\n"
)
BROKEN = "The stove appears broken, and can't be activated or deactivated."
NO_MATCH = "No known action matches that input."
UNKNOWN = "Unknown action.  Type 'help' for a list of actions, and 'objects' for a list of possible object referents. "
LOOK = "This room is called the kitchen. In it, you see: \n\tthe agent\n\ta stove, which is turned off."


def T(command: str, **kw: Any) -> Action:
    return Action(name="Text", args={"command": command, **kw})


class FakeJavaError(protocol.Py4JJavaError):
    """A Java-side exception (the JVM stays alive) without a real JavaObject behind it."""

    def __init__(self, msg: str) -> None:
        Exception.__init__(self, msg)
        self.errmsg, self.java_exception = msg, None

    def __str__(self) -> str:
        return self.errmsg


class FakeServer:
    def __init__(self, world: FakeBackend) -> None:
        self.w = world

    def reset(self) -> str:
        return "ERROR: bad variation" if self.w.variation == 99 else ""

    def step(self, cmd: str) -> str:
        return self.w.step(cmd)

    def getScore(self) -> float:
        return self.w.score / 100

    def getCompleted(self) -> bool:
        return self.w.completed

    def getNumMoves(self) -> int:
        return self.w.moves


class FakeBackend:
    """A tiny kitchen that answers like ScienceWorld: broken stove, working oven, ambiguous cups."""

    def __init__(self) -> None:
        self.server = FakeServer(self)
        self.sent: list[str] = []
        self.loads: list[tuple[str, int, str]] = []
        self.closed = 0
        self.dead = False
        self.envStepLimit = 100
        self.variation = 0
        self._fresh()

    def _fresh(self) -> None:
        self.moves, self.score, self.completed = 0, 0, False
        self.pending: list[str] | None = None
        self.oven_on = False

    def load(self, task: str, variation: int, simplification: str, generateGoldPath: bool = False) -> None:
        if self.dead:
            raise protocol.Py4JNetworkError("Answer from Java side is empty")
        self.loads.append((task, variation, simplification))
        self.variation = variation
        self._fresh()

    def get_max_variations(self, task: str) -> int:
        return 30

    def get_variations_test(self) -> list[int]:
        return [21, 22, 23, 24, 25, 26, 27, 28, 29]

    def get_variations_train(self) -> list[int]:
        return list(range(14))

    def get_variations_dev(self) -> list[int]:
        return list(range(14, 21))

    def look(self) -> str:
        return LOOK

    def inventory(self) -> str:
        return "In your inventory, you see:\n\tan orange\n"

    def taskdescription(self) -> str:
        return "Task Description:\nYour task is to boil water."

    def get_valid_action_object_combinations(self) -> list[str]:
        return ["look around", "activate oven"]

    def getObjectTree(self) -> dict[str, Any]:
        return TREE

    def close(self) -> None:
        self.closed += 1

    def step(self, cmd: str) -> str:
        if self.dead:
            raise protocol.Py4JNetworkError("Answer from Java side is empty")
        self.sent.append(cmd)
        if self.pending is not None:
            options, self.pending = self.pending, None
            if cmd.isdigit() and int(cmd) < len(options):
                self.moves += 1
                return "You move the wood cup to the inventory."
            self.moves += 1  # ScienceWorld counts the cancelled question as a move
            return UNKNOWN
        if cmd == "look around":
            return LOOK
        if cmd == "pick up cup":
            self.pending = ["0", "1"]
            return AMBIGUOUS
        if cmd == "java boom":
            raise FakeJavaError("java.lang.ArrayIndexOutOfBoundsException: 3")
        replies = {
            "pick up metal pot": "You move the metal pot to the inventory.",
            "move metal pot to oven": "You move the metal pot to the oven.",
            "move metal pot to stove": "You move the metal pot to the stove.",
            "drop metal pot": "You move the metal pot to the kitchen.",
            "open oven": "The oven is now open.",
            "close oven": "The oven is now closed.",
            "activate stove": BROKEN,
            "deactivate oven": "The oven is now deactivated.",
            "pick up stove": "The stove is not moveable.",
        }
        if cmd in replies:
            self.moves += 1
            return replies[cmd]
        if cmd == "activate oven":
            self.moves, self.oven_on, self.score = self.moves + 1, True, self.score + 25
            return "The oven is now activated."
        if cmd == "focus on water":
            self.moves, self.score = self.moves + 1, self.score + 50
            return "You focus on the water."
        if cmd == "focus on orange":
            self.moves, self.score = self.moves + 1, -100
            return "You focus on the orange."
        if cmd == "wait1":
            self.moves += 2
            if self.oven_on:
                self.score, self.completed = 100, True
            return "You decide to wait for 1 iterations."
        return NO_MATCH


def _node(name: str, uid: str, children: list[dict[str, Any]] = (), **props: Any) -> dict[str, Any]:
    base = {k: None for k in ("propMaterial", "propDevice", "propContainer", "propHeatSource", "propCoolingSource")}
    base.update(uuid=uid, name=name, type="", isDeleted=False, propLife=None)
    base.update(props)
    base["contents"] = {f"{c['name']}-{c['uuid']}": c for c in children}
    return base


def _parts(uid: str) -> list[dict[str, Any]]:
    return [_node("terminal 1", uid + "a"), _node("terminal 2", uid + "b")]


# Shape and values as in a real boil variation 1 tree (trimmed).
TREE = _node(
    "universe",
    "1",
    [
        _node(
            "kitchen",
            "2",
            [
                _node(
                    "stove",
                    "3",
                    _parts("3"),
                    propDevice={"isActivable": True, "isActivated": False, "isUsable": False, "isBroken": True},
                    propHeatSource={"maxTemp": 260.0, "curSetTemp": None},
                    propContainer={"isContainer": "true", "isOpen": True, "isClosable": False},
                ),
                _node(
                    "cupboard",
                    "4",
                    [
                        _node(
                            "metal pot",
                            "5",
                            [
                                _node(
                                    "water",
                                    "6",
                                    propMaterial={
                                        "substanceName": "water",
                                        "temperatureC": 10.0,
                                        "stateOfMatter": "liquid",
                                    },
                                )
                            ],
                            propMaterial={"substanceName": "steel", "temperatureC": 10.0, "stateOfMatter": "solid"},
                        ),
                        *_parts("4"),
                    ],
                    propContainer={"isContainer": "true", "isOpen": False, "isClosable": True},
                ),
                _node(
                    "freezer",
                    "7",
                    propCoolingSource={"minTemp": -18.0, "curSetTemp": -18.0},
                    propDevice={"isActivable": True, "isActivated": True, "isUsable": False, "isBroken": False},
                ),
                _node("old cup", "8", isDeleted=True),
            ],
        ),
        _node("terminal 1", "9"),
    ],
)


@pytest.fixture
def fake() -> FakeBackend:
    return FakeBackend()


@pytest.fixture
def env(fake: FakeBackend) -> ScienceWorldEnv:
    e = ScienceWorldEnv("boil", variation=1, backend=fake)
    e.reset()
    return e


# ---------------------------------------------------------------- pure helpers


def test_task_list_matches_scienceworld() -> None:
    assert len(tasks()) == 30 and tasks()[0] == "boil" and tasks()[-1] == "mendelian-genetics-unknown-plant"
    constants = pytest.importorskip("scienceworld.constants")
    assert constants.ID2TASK == TASKS


def test_task_list_matches_the_registry() -> None:
    import scenes

    registered = getattr(scenes, "SCIWORLD_TASKS", None)
    if registered is None:
        pytest.skip("scenes does not list the ScienceWorld tasks")
    assert tuple(registered) == tuple(tasks())


def test_resolve_task() -> None:
    assert resolve_task("1-1") == resolve_task("boil") == "boil"
    with pytest.raises(ConfigError, match="unknown ScienceWorld task 'boiling'.*boil, melt"):
        resolve_task("boiling")


def test_check_simplification() -> None:
    assert check_simplification("boil", "easy") == "easy"
    assert check_simplification("boil", "openDoors, teleportAction") == "openDoors,teleportAction"
    assert check_simplification("power-component", "easy") == "easy"
    with pytest.raises(ConfigError, match="cannot be combined"):
        check_simplification("boil", "easy,openContainers")
    with pytest.raises(ConfigError, match="unknown ScienceWorld simplification 'fast'"):
        check_simplification("boil", "fast")
    with pytest.raises(ConfigError, match="needs electrical actions"):
        check_simplification("test-conductivity", "noElectricalAction")


def test_substitute_variations_rule() -> None:
    subs = substitute_variations("boil")
    assert subs[1] == ("kitchen:stove",) and subs[2] == ("kitchen:sink",)
    assert subs[3] == ("kitchen:sink", "kitchen:stove") and 0 not in subs and 4 not in subs
    assert sorted(subs) == [1, 2, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29]
    assert substitute_variations("1-3") == substitute_variations("freeze") == subs
    assert substitute_variations("find-plant") == {} and broken_devices("melt", 0) == ()


def test_reply_classification() -> None:
    for failed in (NO_MATCH, UNKNOWN, AMBIGUOUS, BROKEN, "The stove is not moveable.", "The oven is already open.",
                   "That can't be moved there, because it's not a container.", "ERROR: Task (boil): ..."):  # fmt: skip
        assert is_failure(failed), failed
    for ok in ("The oven is now activated.", "You move the metal pot to the oven.", LOOK,
               "You decide to wait for 1 iterations.", "You focus on the water."):  # fmt: skip
        assert not is_failure(ok), ok
    assert parse_choices(AMBIGUOUS) == [
        "pick up wood cup (in art studio)",
        "pick up wood cup (in table, in art studio)",
    ]
    assert parse_choices(NO_MATCH) == []


def test_flatten_tree_skips_parts_and_deleted() -> None:
    objs = {o.name: o for o in flatten_tree(TREE)}
    assert set(objs) == {"kitchen", "stove", "cupboard", "metal pot", "water", "freezer"}
    stove, pot, water = objs["stove"], objs["metal pot"], objs["water"]
    assert stove.is_broken is True and stove.max_temp_c == 260.0 and stove.location == "kitchen:stove"
    assert pot.path == ("kitchen", "cupboard") and pot.material == "steel" and pot.is_broken is None
    assert pot.contents == ("water",) and water.state_of_matter == "liquid" and water.temperature_c == 10.0
    assert objs["cupboard"].is_open is False and objs["freezer"].min_temp_c == -18.0
    assert objs["kitchen"].room is None and objs["kitchen"].location == "kitchen"


# ---------------------------------------------------------------- reset


def test_reset_loads_and_observes(fake: FakeBackend) -> None:
    env = ScienceWorldEnv("1-1", variation=3, simplification="openDoors", step_limit=50, backend=fake)
    assert fake.envStepLimit == 50
    obs, info = env.reset()
    assert fake.loads == [("boil", 3, "openDoors")] and fake.sent == ["look around"]
    assert isinstance(obs, SceneObs) and obs.text == LOOK and obs.objects == ()
    assert obs.extra["task_description"].endswith("boil water.") and "orange" in obs.extra["inventory"]
    assert (obs.extra["score"], obs.extra["moves"]) == (0, 0) and "valid_actions" not in obs.extra
    assert info == {
        "task": "boil", "variation": 3, "simplification": "openDoors", "score": 0, "moves": 0,
        "action_success": True, "error": "",
    }  # fmt: skip
    env.reset(options={"variation": 7})
    assert fake.loads[-1] == ("boil", 7, "openDoors")


def test_reset_split_picks_a_variation_by_seed(fake: FakeBackend) -> None:
    env = ScienceWorldEnv("boil", backend=fake)
    picks = {env.reset(seed=s, options={"split": "test"})[1]["variation"] for s in range(20)}
    assert picks <= set(range(21, 30)) and len(picks) > 1
    assert env.reset(seed=4, options={"split": "test"})[1] == env.reset(seed=4, options={"split": "test"})[1]


def test_reset_rejects_bad_options(fake: FakeBackend) -> None:
    env = ScienceWorldEnv("boil", backend=fake)
    with pytest.raises(ConfigError, match="valid 0..29"):
        env.reset(options={"variation": 30})
    with pytest.raises(ConfigError, match="'variation', 'split'"):
        env.reset(options={"seed": 1})
    with pytest.raises(ConfigError, match="valid: train, dev, test"):
        env.reset(options={"split": "val"})


def test_load_error_string_is_a_config_error(fake: FakeBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fake, "get_max_variations", lambda task: 100)
    env = ScienceWorldEnv("boil", backend=fake)
    with pytest.raises(ConfigError, match="ERROR: bad variation"):
        env.reset(options={"variation": 99})


def test_valid_actions_on_request(fake: FakeBackend) -> None:
    env = ScienceWorldEnv("boil", valid_actions=True, backend=fake)
    obs, _ = env.reset()
    assert obs.extra["valid_actions"] == ["look around", "activate oven"]
    assert env.valid_actions() == ["look around", "activate oven"]


# ---------------------------------------------------------------- step


def test_thor_verbs_map_to_commands(env: ScienceWorldEnv, fake: FakeBackend) -> None:
    steps = [
        (Action(name="OpenObject", object_id="oven"), "open oven"),
        (Action(name="PickupObject", object_id="metal pot"), "pick up metal pot"),
        (Action(name="PutObject", object_id="oven"), "move metal pot to oven"),  # held object from the pickup
        (Action(name="ToggleObjectOn", object_id="oven"), "activate oven"),
        (Action(name="ToggleObjectOff", object_id="oven"), "deactivate oven"),
        (Action(name="PutObject", object_id="stove", args={"object": "metal pot"}), "move metal pot to stove"),
        (Action(name="CloseObject", object_id="oven"), "close oven"),
        (Action(name="Pass"), "wait1"),
    ]
    for action, command in steps:
        obs, _, _, _, info = env.step(action)
        assert info["command"] == command and fake.sent[-1] == command and info["action_success"], command
        assert obs.text.startswith(obs.extra["observation"]) and obs.text.endswith(LOOK)


def test_look_around_is_not_repeated_in_the_text(env: ScienceWorldEnv) -> None:
    obs, *_ = env.step(T("look around"))
    assert obs.text == LOOK and env.render() == LOOK


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Action(name="SliceObject", object_id="apple"), "no ScienceWorld equivalent; valid: Text, PickupObject"),
        (Action(name="OpenObject"), "needs object_id"),
        (Action(name="PutObject", object_id="oven"), "needs args={'object': ...}"),
        (Action(name="Text", args={"cmd": "look"}), "needs args={'command'"),
    ],
)
def test_unmappable_actions_fail_without_reaching_the_jvm(
    env: ScienceWorldEnv, fake: FakeBackend, action: Action, message: str
) -> None:
    before = list(fake.sent)
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["action_success"] is False and message in info["error"]
    assert fake.sent == before and (reward, terminated, truncated) == (0.0, False, False)
    assert obs.text.startswith(info["error"])


def test_world_failures_are_failed_steps(env: ScienceWorldEnv) -> None:
    _, _, _, _, info = env.step(Action(name="ToggleObjectOn", object_id="stove"))
    assert info["action_success"] is False and info["error"] == BROKEN and info["moves"] == 1
    _, _, _, _, info = env.step(T("fly to the moon"))
    assert info["action_success"] is False and info["error"] == NO_MATCH
    _, _, _, _, info = env.step(Action(name="PickupObject", object_id="stove"))
    assert info["action_success"] is False and info["error"] == "The stove is not moveable."


def test_java_exception_in_a_command_is_a_failed_step(env: ScienceWorldEnv) -> None:
    _, _, _, _, info = env.step(T("java boom"))
    assert info["action_success"] is False and "ArrayIndexOutOfBoundsException" in info["error"]
    _, _, _, _, info = env.step(T("look around"))  # the env is still usable
    assert info["action_success"] is True


def test_ambiguity_answer_cancel_and_choice(env: ScienceWorldEnv, fake: FakeBackend) -> None:
    _, _, _, _, info = env.step(T("pick up cup"))
    assert info["action_success"] is False and info["choices"] == parse_choices(AMBIGUOUS)
    _, _, _, _, info = env.step(T("1"))  # a number answers the question
    assert info["action_success"] is True and fake.sent[-1] == "1" and "choices" not in info

    env.step(T("pick up cup"))
    _, _, _, _, info = env.step(T("look around"))  # anything else cancels it first, then runs
    assert fake.sent[-2:] == ["", "look around"] and info["action_success"] is True
    assert info["moves"] == 2  # the answered pickup (1) + the cancelled question (1); look around is free

    _, _, _, _, info = env.step(T("pick up cup", choice=0))  # answer at once
    assert fake.sent[-2:] == ["pick up cup", "0"] and info["action_success"] is True and info["command"] == "0"


def test_reward_termination_and_success(env: ScienceWorldEnv) -> None:
    env.step(T("focus on water"))
    env.step(T("open oven"))
    _, reward, terminated, _, info = env.step(T("activate oven"))
    assert (reward, terminated, info["score"]) == (25.0, False, 75)
    _, reward, terminated, truncated, info = env.step(T("wait1"))
    assert (reward, terminated, truncated) == (25.0, True, False) and info["success"] is True


def test_negative_score_terminates_as_failure(env: ScienceWorldEnv) -> None:
    _, reward, terminated, truncated, info = env.step(T("focus on orange"))
    assert (reward, terminated, truncated, info["success"]) == (-100.0, True, False, False)


def test_step_limit_truncates(fake: FakeBackend) -> None:
    env = ScienceWorldEnv("boil", step_limit=4, backend=fake)
    env.reset()
    flags = [env.step(T("wait1"))[2:4] for _ in range(3)]  # moves 2, 4, 6: truncated once past 4
    assert flags == [(False, False), (False, False), (False, True)]


# ---------------------------------------------------------------- lifecycle


def test_step_before_reset_and_after_close(fake: FakeBackend) -> None:
    env = ScienceWorldEnv("boil", backend=fake)
    with pytest.raises(ResetNeeded):
        env.step(T("look around"))
    with pytest.raises(ResetNeeded):
        env.object_tree()
    env.reset()
    env.close()
    env.close()
    assert fake.closed == 1
    with pytest.raises(SimulatorError, match="closed"):
        env.step(T("look around"))
    with pytest.raises(SimulatorError, match="closed"):
        env.reset()


def test_dead_jvm_is_closed_and_reported(env: ScienceWorldEnv, fake: FakeBackend) -> None:
    fake.dead = True
    with pytest.raises(SimulatorError, match="stopped responding during 'look around'") as ei:
        env.step(T("look around"))
    assert isinstance(ei.value.__cause__, protocol.Py4JNetworkError)
    assert fake.closed == 1
    with pytest.raises(SimulatorError, match="closed"):
        env.step(T("look around"))


def test_dead_jvm_during_reset(fake: FakeBackend) -> None:
    env = ScienceWorldEnv("boil", backend=fake)
    env.reset()
    fake.dead = True
    with pytest.raises(SimulatorError, match="'load'"):
        env.reset()


def test_ground_truth_from_the_tree(env: ScienceWorldEnv) -> None:
    assert env.object_tree() is TREE
    assert env.broken_devices() == ("kitchen:stove",) == broken_devices("boil", 1)
    assert {o.name for o in env.objects()} >= {"stove", "metal pot"}


# ---------------------------------------------------------------- start-up checks


def test_bad_constructor_arguments(fake: FakeBackend) -> None:
    with pytest.raises(ConfigError, match="unknown ScienceWorld task"):
        ScienceWorldEnv("cook", backend=fake)
    with pytest.raises(ConfigError, match="step_limit"):
        ScienceWorldEnv("boil", step_limit=0, backend=fake)
    with pytest.raises(ConfigError, match="cannot be combined"):
        ScienceWorldEnv("boil", simplification="easy,openDoors", backend=fake)


def test_missing_java_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("scienceworld")
    monkeypatch.setattr(sw_env.shutil, "which", lambda name: None)
    sw_env.java_version.cache_clear()
    try:
        with pytest.raises(DependencyNotInstalled, match="`java` is not on PATH.*openjdk"):
            ScienceWorldEnv("boil")
    finally:
        sw_env.java_version.cache_clear()


def test_missing_jar_is_a_config_error(tmp_path: Any) -> None:
    pytest.importorskip("scienceworld")
    with pytest.raises(ConfigError, match="is not a file"):
        ScienceWorldEnv("boil", jar_path=tmp_path / "nope.jar")


def test_java_version_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    class R:
        def __init__(self, err: str) -> None:
            self.stderr, self.stdout = err, ""

    for text, want in [('openjdk version "17.0.15" 2025-04-15', 17), ('java version "1.8.0_292"', 8), ("???", 0)]:
        monkeypatch.setattr(sw_env.shutil, "which", lambda name: "/usr/bin/java")
        monkeypatch.setattr(sw_env.subprocess, "run", lambda *a, _t=text, **k: R(_t))
        sw_env.java_version.cache_clear()
        assert sw_env.java_version() == want
    sw_env.java_version.cache_clear()


def test_conformance_through_the_registry(fake: FakeBackend) -> None:
    import scenes
    from scenes.checker import check_scene_env

    env = scenes.make("sciworld/boil-v0", backend=fake)
    check_scene_env(env)
    assert fake.closed == 1
