"""The ScienceWorld text skills (skills/sciworld.py) on a scripted text backend: no JVM, no agent.

The replies are ScienceWorld 1.2.3's wording ("Ambiguous request: ...", "The sink appears broken, ...",
"the thermometer measures a temperature of 46 degrees celsius").
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

import skills
from planner.schemas import SkillCall
from scenes.base import Action, SceneEnv, SceneObs
from scenes.sciworld import is_failure, parse_choices
from skills import SkillContext, get_skill, register_skill, unregister_skill
from skills.sciworld import EPISODE_OVER, TextSkill, TextSkillContext, send

AMBIGUOUS = ("Ambiguous request: Please enter the number for the action you intended (or blank to cancel):\n"
             "0: pick up metal pot (in cupboard, in kitchen)\n1: pick up metal pot (in oven, in kitchen)\n")
NO_ACTION = "No known action matches that input."


class ScriptedText(SceneEnv[SceneObs, Action]):
    """Answers each text command from ``script`` (command -> reply, or a callable of the command).

    Unknown commands get ScienceWorld's "No known action matches that input."; ``end_on`` ends the episode
    (terminated) with that command. Every command is kept in ``sent``.
    """

    def __init__(self, script: dict[str, str | Callable[[], str]], end_on: str | None = None) -> None:
        self.script, self.end_on = script, end_on
        self.sent: list[str] = []
        self.moves = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[SceneObs, dict]:
        return self._obs("", ""), {}

    def step(self, action: Action) -> tuple[SceneObs, float, bool, bool, dict[str, Any]]:
        cmd = str(action.args["command"])
        self.sent.append(cmd)
        answer = self.script.get(cmd, NO_ACTION)
        reply = answer() if callable(answer) else answer
        self.moves += 1
        ok = not is_failure(reply) and not reply.startswith("Ambiguous request")
        return self._obs(reply, cmd), 0.0, cmd == self.end_on, False, {"action_success": ok, "error": ""}

    def render(self) -> str | None:
        return None

    def close(self) -> None:
        pass

    def _obs(self, reply: str, cmd: str) -> SceneObs:
        return SceneObs(text=reply, extra={"observation": reply, "command": cmd, "score": 0, "moves": self.moves})


class Memory:
    """The part of the agent's RoomMemory the skills read, updated from the replies."""

    def __init__(self, room: str = "kitchen", carried: tuple[str, ...] = ()) -> None:
        self.room: str | None = room
        self.carried = set(carried)
        self.records = 0

    def holds(self, name: str) -> bool:
        return name in self.carried

    def record(self, obs: SceneObs) -> None:
        self.records += 1
        reply = str(obs.extra.get("observation", ""))
        if m := re.match(r"You move the (.+?) to the inventory", reply):
            self.carried.add(m.group(1))
        elif m := re.match(r"You move the (.+?) to the ", reply):
            self.carried.discard(m.group(1))
        elif m := re.match(r"You teleport to the (.+?)\.", reply):
            self.room = m.group(1)


def _reading(reply: str) -> float | None:
    m = re.search(r"the thermometer measures a temperature of (-?\d+(?:\.\d+)?) degrees celsius", reply)
    return float(m.group(1)) if m else None


def _ctx(env: ScriptedText, memory: Memory | None = None,
         substance_in: Callable[[str], str | None] = lambda vessel: None) -> TextSkillContext:
    obs, _ = env.reset()
    return TextSkillContext(env=env, obs=obs, max_steps=1000, memory=memory or Memory(),
                            parse_choices=parse_choices, read_temperature=_reading, substance_in=substance_in)


def _call(skill: str, ctx: SkillContext, target: str | None = None, receptacle: str | None = None,
          **args: Any) -> skills.SkillResult:
    return get_skill(skill)(SkillCall(skill=skill, target=target, receptacle=receptacle, args=args), ctx)


# ---------------------------------------------------------------- registry and contract
def test_text_skills_are_registered_on_import() -> None:
    names = {"sw_teleport", "sw_open", "sw_take", "sw_focus", "sw_fill", "sw_transfer", "sw_place", "sw_measure",
             "sw_wait"}
    assert names <= set(skills.skill_names())
    assert all(isinstance(get_skill(n), TextSkill) for n in names)


def test_a_text_skill_needs_a_text_context_and_a_target() -> None:
    env = ScriptedText({})
    obs, _ = env.reset()
    res = _call("sw_take", SkillContext(env=env, obs=obs), "metal pot")
    assert not res.ok and "TextSkillContext" in res.reason and env.sent == []
    res = _call("sw_take", _ctx(env))
    assert not res.ok and res.reason == "skill 'sw_take' needs a target" and env.sent == []


def test_skills_import_only_contract_leaves_and_scenes_base() -> None:
    src = Path(skills.__file__).with_name("sciworld.py")
    imported = {n.module for n in ast.walk(ast.parse(src.read_text()))
                if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module}
    imported |= {a.name for n in ast.walk(ast.parse(src.read_text())) if isinstance(n, ast.Import) for a in n.names}
    project = {m for m in imported if m.split(".")[0] in ("planner", "scenes", "perception", "skills")}
    assert project <= {"planner.schemas", "planner.errors", "planner._optional", "planner.paths", "scenes.base"}


# ---------------------------------------------------------------- sending commands
def test_an_ambiguity_prompt_is_answered_by_the_preferred_words() -> None:
    env = ScriptedText({"pick up metal pot": AMBIGUOUS, "1": "You move the metal pot to the inventory."})
    ctx = _ctx(env)
    ctx.placed = "oven"
    res = _call("sw_take", ctx, "metal pot")  # no prefer given: the device it was placed in decides
    assert res.ok and env.sent == ["pick up metal pot", "1"] and res.steps == 2
    assert ctx.memory.holds("metal pot") and ctx.placed is None
    assert ctx.transcript[0].startswith("> pick up metal pot [score 0, moves 1]\nAmbiguous request")
    assert ctx.memory.records == 1  # memory updated once per command, after the answer


def test_take_tries_another_phrasing_then_waits_a_tick() -> None:
    env = ScriptedText({"move ice to inventory": "You move the ice to the inventory."})
    assert _call("sw_take", _ctx(env), "ice").ok and env.sent == ["pick up ice", "move ice to inventory"]
    env = ScriptedText({"wait1": "You decide to wait for 1 iterations."})
    res = _call("sw_take", _ctx(env), "ice")
    assert not res.ok and res.reason == "could not pick up the ice"
    assert env.sent == ["pick up ice", "move ice to inventory", "wait1", "pick up ice"]
    env = ScriptedText({})
    assert _call("sw_take", _ctx(env, Memory(carried=("ice",))), "ice").ok and env.sent == []


def test_the_episode_ending_stops_a_skill_at_once() -> None:
    env = ScriptedText({"move metal pot to sink": "You move the metal pot to the sink.",
                        "activate sink": "The sink is now activated."}, end_on="activate sink")
    ctx = _ctx(env, Memory(carried=("metal pot",)))
    res = _call("sw_fill", ctx, "metal pot", "sink", room="kitchen")
    assert (res.ok, res.reason) == (False, EPISODE_OVER)
    assert env.sent == ["move metal pot to sink", "activate sink"] and ctx.terminated
    res = _call("sw_wait", ctx)
    assert (res.ok, res.reason, res.steps) == (False, EPISODE_OVER, 0)


def test_a_text_skill_keeps_to_its_step_budget() -> None:
    @register_skill
    class Chatty(TextSkill):
        name = "sw_test_chatty"
        needs_target = False
        max_steps: ClassVar[int] = 2

        def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
            for _ in range(5):
                send(ctx, "look around")
            return True, ""

    try:
        env = ScriptedText({"look around": "This room is called the kitchen."})
        res = _call("sw_test_chatty", _ctx(env))
        assert (res.ok, res.reason, res.steps) == (False, "step budget of 2 exhausted", 2)
    finally:
        unregister_skill("sw_test_chatty")
    env = ScriptedText({"wait1": "You decide to wait for 1 iterations."})
    assert _call("sw_wait", _ctx(env), ticks=3).steps == 3 and env.sent == ["wait1"] * 3


# ---------------------------------------------------------------- the procedures
def test_teleport() -> None:
    env = ScriptedText({"teleport to foundry": "You teleport to the foundry."})
    ctx = _ctx(env)
    assert _call("sw_teleport", ctx, "kitchen").reason == "already there" and env.sent == []
    assert _call("sw_teleport", ctx, "foundry").ok and ctx.memory.room == "foundry"
    res = _call("sw_teleport", ctx, "moon")
    assert (res.ok, res.reason) == (False, f"cannot reach the moon: {NO_ACTION}")


def test_fill_reports_a_broken_source_in_its_own_words() -> None:
    broken = "The sink appears broken, and can't be activated or deactivated."
    env = ScriptedText({"move metal pot to sink": "You move the metal pot to the sink.", "activate sink": broken})
    ctx = _ctx(env, Memory(carried=("metal pot",)))
    res = _call("sw_fill", ctx, "metal pot", "sink", room="kitchen")
    assert (res.ok, res.reason) == (False, broken) and ctx.placed == "sink"  # the pot stays in the sink
    assert (res.fault, res.blame) == ("broken", "sink")  # the loop's verdict: decide the water source again


def test_fill_runs_the_tap_and_takes_the_vessel_back() -> None:
    env = ScriptedText({"move metal pot to sink": "You move the metal pot to the sink.",
                        "activate sink": "The sink is now activated.", "wait1": "You decide to wait for 1 iterations.",
                        "deactivate sink": "The sink is now deactivated.",
                        "pick up metal pot": "You move the metal pot to the inventory."})
    ctx = _ctx(env, Memory(carried=("metal pot",)))
    assert _call("sw_fill", ctx, "metal pot", "sink", room="kitchen").ok
    assert env.sent == ["move metal pot to sink", "activate sink", "wait1", "deactivate sink", "pick up metal pot"]
    assert ctx.memory.holds("metal pot") and ctx.placed is None


def test_place_switches_the_device_on_and_says_when_it_is_broken() -> None:
    env = ScriptedText({"move metal pot to stove": "You move the metal pot to the stove.",
                        "activate stove": "The stove appears broken, and can't be activated or deactivated."})
    ctx = _ctx(env, Memory(carried=("metal pot",)))
    res = _call("sw_place", ctx, "metal pot", "stove", room="kitchen", activate=True)
    assert (res.ok, res.reason, ctx.placed) == (False, "broken", "stove")
    res = _call("sw_place", ctx, "metal pot", "stove", room="kitchen", activate=True)
    assert not res.ok and res.reason == "the agent does not carry the metal pot"  # it is on the stove now
    ctx = _ctx(ScriptedText({}), Memory(carried=("metal pot",)))
    res = _call("sw_place", ctx, "metal pot", "oven", activate=True)
    assert res.reason == f"failed: {NO_ACTION}" and ctx.placed is None
    assert (res.fault, res.blame) == ("blocked", "oven")


def test_place_blames_a_broken_device() -> None:
    env = ScriptedText({"move metal pot to stove": "You move the metal pot to the stove.",
                        "activate stove": "The stove appears broken, and can't be activated or deactivated."})
    res = _call("sw_place", _ctx(env, Memory(carried=("metal pot",))), "metal pot", "stove", room="kitchen",
                activate=True)
    assert (res.ok, res.fault, res.blame) == (False, "broken", "stove")


def test_measure_reads_the_substance_then_falls_back_to_its_name() -> None:
    reading = "the thermometer measures a temperature of 46 degrees celsius"
    env = ScriptedText({"use thermometer in inventory on steam": reading})
    ctx = _ctx(env, substance_in=lambda vessel: "steam")
    res = _call("sw_measure", ctx, "metal pot")
    assert res.ok and ctx.last_reading == 46.0 and env.sent == [
        "use thermometer in inventory on substance in metal pot", "use thermometer in inventory on steam"]
    ctx = _ctx(ScriptedText({}))
    assert not _call("sw_measure", ctx, "metal pot").ok and ctx.last_reading is None


def test_focus_prefers_the_substance_in_the_vessel() -> None:
    env = ScriptedText({"focus on substance in metal pot": "You focus on the water."})
    res = _call("sw_focus", _ctx(env, Memory(carried=("metal pot",))), "metal pot", name="water", substance=True)
    assert res.ok and env.sent == ["focus on substance in metal pot"]
    env = ScriptedText({})
    res = _call("sw_focus", _ctx(env), "metal pot", name="lead", substance=False)
    assert (res.ok, res.reason, env.sent) == (False, "could not focus on lead", ["focus on lead"])


def test_transfer_pours_a_liquid_first_and_checks_it_arrived() -> None:
    arrived: list[str] = []
    env = ScriptedText({"pour glass cup into metal pot": lambda: arrived.append("orange juice") or
                        "You pour the glass cup into the metal pot."})
    ctx = _ctx(env, Memory(carried=("metal pot",)), substance_in=lambda vessel: arrived[0] if arrived else None)
    res = _call("sw_transfer", ctx, "orange juice", "metal pot", parent="glass cup", holder="fridge",
                room="kitchen", liquid=True)
    assert res.ok and env.sent == ["pour glass cup into metal pot"]
    env = ScriptedText({})
    ctx = _ctx(env, Memory(carried=("metal pot",)))
    res = _call("sw_transfer", ctx, "lead", "metal pot", parent=None, holder="foundry", room="foundry", liquid=False)
    assert (res.ok, res.reason) == (False, "could not get lead into the metal pot")
    assert env.sent[0] == "move lead to metal pot" and "pick up lead" in env.sent


@pytest.mark.parametrize("skill", ["sw_open", "sw_focus", "sw_measure", "sw_place", "sw_fill", "sw_transfer"])
def test_target_is_required(skill: str) -> None:
    res = _call(skill, _ctx(ScriptedText({})))
    assert not res.ok and "needs a target" in res.reason
