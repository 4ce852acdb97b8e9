"""The ScienceWorld player: one closed loop for every task shape, plays built from a task spec and text skills.

:class:`TaskPlayer` resets the episode, reads the task description into a :class:`~.spec.TaskSpec`
(:func:`~.spec.read_task`), and runs the play of the spec's shape (:mod:`.plays`). A play is a short
composition of the shared text skills (go to a room, focus, take, move, connect, look at, read a thermometer,
wait); what it acts on comes from the spec and from two-stage choices (:mod:`.select`) over what the agent has
seen; what it checks is the text (:mod:`.checks`). Failed steps go through the shared loop
(:class:`~planner.agents.loop.ClosedLoop`): the blamed object is marked unusable and its role decided again.

The change-of-state shape (boil, melt, freeze, change-the-state-of-matter-of) is played by
:class:`~.agent.SciWorldAgent`, which chooses heat sources and vessels through COAT's selector;
:class:`ScienceWorldPlayer` sends each task to the right one.

Requires: the ``sciworld`` extra and Java on PATH (through the env passed in).
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from perception.text import TextEstimator
from scenes.sciworld import has_teleport, parse_choices
from skills import SkillResult, get_skill
from skills.sciworld import TextSkillContext

from ...errors import ConfigError
from ...schemas import SkillCall
from ..loop import ClosedLoop, LoopRun
from .contracts import AgentConfig, DeviceChoice, EpisodeResult
from .episode import EpisodeOver, Stuck, Tap, read_temperature
from .facts import ROOM_ORDER
from .memory import RoomMemory, SeenObject
from .select import referent
from .spec import TaskSpec, read_task, shape_of

if TYPE_CHECKING:
    from scenes.base import SceneEnv

logger = logging.getLogger(__name__)


@dataclass(kw_only=True)
class PlayRun(LoopRun):
    """One episode's loop record for a play: the spec, the role being served and the answer given."""

    env: Any
    tap: Tap
    variation: int
    t0: float
    spec: TaskSpec | None = None
    role: str = ""
    redecide_role: Callable[[str], list[SkillCall] | None] | None = None
    answer: str = ""
    choices: list[DeviceChoice] = field(default_factory=list)


def where(e: SeenObject) -> str:
    """The words that pick a seen object out of an "Ambiguous request" list: ``in cupboard`` for one inside a
    container, ``(in kitchen)`` for one loose in the room (its twins read ``(in cupboard, in kitchen)``)."""
    if e.room == "inventory":
        return "inventory"
    return f"in {e.obj.parent}" if e.obj.parent else f"(in {e.room})"


class TaskPlayer(ClosedLoop[PlayRun, EpisodeResult]):
    """Plays every task shape but change of state: perceive, read the spec, run the shape's play, verify.

    Args:
        config: How to decide (:class:`~.contracts.AgentConfig`; ``max_replans`` is the re-plan budget).
    """

    def __init__(self, config: AgentConfig | None = None) -> None:
        self.config = config or AgentConfig()
        self.max_replans = self.config.max_replans

    # ------------------------------------------------------------ episode
    def run(self, env: SceneEnv[Any, Any], variation: int) -> EpisodeResult:
        """Reset ``env`` to ``variation``, read the task and play it out."""
        from . import plays

        t0 = time.perf_counter()
        tap = Tap(env)
        self._run = run = PlayRun(env=env, tap=tap, variation=variation, t0=t0)
        obs, _info = tap.reset(options={"variation": variation})
        self.memory = RoomMemory(TextEstimator(priors=None))
        self.memory.record(obs)
        self.ctx = TextSkillContext(env=tap, obs=obs, max_steps=100_000,  # type: ignore[arg-type]
                                    memory=self.memory, parse_choices=parse_choices,
                                    read_temperature=read_temperature, substance_in=lambda _v: None,
                                    teleport=has_teleport(getattr(env, "simplification", "easy")))
        task = str(getattr(env, "task", ""))
        try:
            run.spec = read_task(str(obs.extra.get("task_description", "")), task)
            play = plays.PLAYS.get(run.spec.shape)
            if play is None:
                raise Stuck(f"no play for the {run.spec.shape} shape")
            play(self, run.spec)
        except EpisodeOver:
            pass
        except Stuck as e:
            run.failure = run.failure or str(e)
        except ConfigError as e:  # an unreadable description: a counted failure with the text kept
            run.failure = f"unreadable task description: {e}"
        return self.report(run)

    def report(self, run: PlayRun) -> EpisodeResult:
        """The :class:`~.contracts.EpisodeResult`: score and completion as ScienceWorld says."""
        info, obs = run.tap.info, self.ctx.obs
        score = int(obs.extra.get("score", info.get("score", 0)) or 0)
        completed = bool(info.get("success", False))
        failure = run.failure
        if not completed and not failure:
            failure = "step limit" if run.tap.truncated else ("task failed" if score < 0 else "not completed")
        task = str(getattr(run.env, "task", run.spec.task if run.spec else ""))
        return EpisodeResult(
            task=task, variation=run.variation, policy=self.config.policy, llm=self.config.llm,
            interpret=self.config.interpretation, device_specs=self.config.device_specs,
            shape=run.spec.shape if run.spec else shape_of(task), spec=run.spec, answer=run.answer,
            score=score, completed=completed, moves=int(obs.extra.get("moves", 0) or 0),
            commands=len(self.ctx.actions), choices=tuple(run.choices), replans=run.replans,
            excluded=dict(run.excluded), failure="" if completed else failure,
            seconds=round(time.perf_counter() - run.t0, 3),
            transcript=tuple(self.ctx.transcript) if self.config.keep_transcript else (),
        )

    # ------------------------------------------------------------ acting through skills
    def act(self, run: PlayRun, call: SkillCall) -> SkillResult:
        """One ScienceWorld skill call in the player's text context."""
        return get_skill(call.skill)(call, self.ctx)

    def step(self, run: PlayRun, call: SkillCall) -> SkillResult:
        """Run and record one skill call; stop the play when ScienceWorld has ended the episode."""
        res = super().step(run, call)
        if self.ctx.terminated:
            raise EpisodeOver()
        return res

    def skill(self, skill: str, target: str | None = None, receptacle: str | None = None,
              **args: Any) -> SkillResult:
        """Run one skill call now (outside a queue)."""
        return self.step(self._run, SkillCall(skill=skill, target=target, receptacle=receptacle, args=args))

    def must(self, skill: str, target: str | None = None, receptacle: str | None = None, **args: Any) -> str:
        """Run one skill call; the play cannot go on without it (:class:`~.episode.Stuck` on failure)."""
        res = self.skill(skill, target, receptacle, **args)
        if not res.ok:
            raise Stuck(f"{skill}({target}): {res.reason}")
        return res.reason

    def run_steps(self, role: str, steps: Sequence[SkillCall],
                  redecide: Callable[[str], list[SkillCall] | None] | None = None) -> bool:
        """Run a queue of steps for one role; a failure blames an object and ``redecide(blame)`` re-plans."""
        run = self._run
        run.role, run.redecide_role = role, redecide
        run.load(steps)
        return self.drive(run)

    # ------------------------------------------------------------ the loop's hooks
    def culprit(self, run: PlayRun, call: SkillCall, res: SkillResult) -> tuple[str | None, str | None]:
        """The blamed object and the role it served (none without a re-decision for the role)."""
        if run.redecide_role is None:
            return None, None
        return (res.blame or call.target), run.role

    def redecide(self, run: PlayRun, role: str, blame: str, res: SkillResult) -> list[SkillCall] | None:
        """The role's next-best object and the steps that use it."""
        logger.info("%s failed (%s); re-deciding %s", blame, res.reason, role)
        return run.redecide_role(blame) if run.redecide_role is not None else None

    # ------------------------------------------------------------ perceiving
    def goto(self, room: str) -> bool:
        """Go to a room (``sw_go_to``: teleport, or walk through doors); False when it cannot be reached."""
        return bool(room) and self.skill("sw_go_to", room).ok

    def explore(self, first: Sequence[str] = (), until: Callable[[], bool] | None = None) -> None:
        """Visit rooms not seen yet (``first`` ones first, then ScienceWorld's others; walking, the nearest of
        those next) until ``until()`` holds."""
        if until is not None and until():
            return
        walk = not self.ctx.teleport
        rest = [r for r in ROOM_ORDER if r not in first]
        for room in itertools.chain(self.memory.tour(first, walk=False), self.memory.tour(rest, walk=walk)):
            if room in self.memory.rooms and room != self.memory.room:
                continue
            self.goto(room)
            if until is not None and until():
                return

    def open_storage(self, room: str) -> None:
        """Open every closed container of a room that is not a device (cupboard, fridge, drawer...)."""
        for e in list(self.memory.rooms.get(room, [])):
            if e.obj.is_open is False and e.obj.device_on is None:
                self.skill("sw_open", e.obj.name, prefer=[room])

    def seen(self, pred: Callable[[SeenObject], bool]) -> list[SeenObject]:
        """Seen objects (carried ones too) matching ``pred``; one entry per room-qualified id."""
        out: dict[str, SeenObject] = {}
        for e in self.memory.entries():
            if pred(e):
                out.setdefault(e.gid, e)
        return list(out.values())

    def named(self, name: str, room: str | None = None) -> list[SeenObject]:
        """Seen objects called ``name`` (by the parser's name), in ``room`` if given."""
        low = name.lower()
        return self.seen(lambda e: (referent(e.obj.name).lower() == low or e.obj.name.lower() == low)
                         and (room is None or e.room == room))

    def here(self, e: SeenObject) -> str:
        """Go where a seen object is (nothing to do when it is carried); its name for commands."""
        if e.room != "inventory" and e.room != self.memory.room:
            self.goto(e.room)
        return referent(e.obj.name)

    def fetch(self, e: SeenObject) -> str:
        """Carry a seen object (go there and pick it up); its name for commands."""
        name = self.here(e)
        if not self.memory.holds(name) and not self.memory.holds(e.obj.name):
            self.must("sw_pick_up", name, prefer=[where(e)])
        return name

    def fetch_named(self, name: str) -> None:
        """Carry an object known by name only (taken back from wherever it was just put)."""
        if not self.memory.holds(name):
            self.skill("sw_pick_up", name)

    def record(self, choice: DeviceChoice) -> DeviceChoice:
        """Keep a decision for the report."""
        self._run.choices.append(choice)
        return choice


class ScienceWorldPlayer:
    """One agent for all 30 tasks: change of state goes to :class:`~.agent.SciWorldAgent` (COAT's
    selector for heat sources and vessels), every other shape to :class:`TaskPlayer`.

    Args:
        config: How to decide (:class:`~.contracts.AgentConfig`).
        data_dir: Data directory for COAT's knowledge base (the change-of-state shape).
    """

    def __init__(self, config: AgentConfig | None = None, *, data_dir: Any = None) -> None:
        self.config = config or AgentConfig()
        self._data_dir = data_dir
        self._change: Any = None
        self._player = TaskPlayer(self.config)

    def run(self, env: SceneEnv[Any, Any], variation: int) -> EpisodeResult:
        """Play one episode of the env's task."""
        task = str(getattr(env, "task", ""))
        if shape_of(task) == "change-state":
            if self._change is None:
                from .agent import SciWorldAgent

                self._change = SciWorldAgent(self.config, data_dir=self._data_dir)
            return self._change.run(env, variation)  # type: ignore[no-any-return]
        return self._player.run(env, variation)


__all__ = ["PlayRun", "ScienceWorldPlayer", "TaskPlayer", "where"]
