"""ScienceWorld skills: the text procedures of the change-of-state agent, in ScienceWorld's own commands.

ScienceWorld is driven by text: every skill sends ``Action(name="Text", args={"command": ...})`` through
``SceneEnv.step`` and reads the reply. The commands are the same for every task of the family; nothing comes
from ScienceWorld's gold action sequences. Skill names carry an ``sw_`` prefix, since their AI2-THOR
namesakes (``open``, ``pickup``, ``wait``) already exist and act on object metadata this backend lacks.

What a text skill needs beyond a :class:`~skills.base.SkillContext` comes in a :class:`TextSkillContext`:
the agent's memory of the rooms (which room it is in, what it carries), and two readers of ScienceWorld's
text, the options of an "Ambiguous request" reply and a thermometer reading. The agent passes those in;
skills import neither the backend nor perception (the layering rule of the skills package).

ScienceWorld's parser is picky and often answers "Ambiguous request" with numbered options; every command
takes ``prefer`` words and answers such a prompt with the first option holding all of them (else any).
When the episode ends (task done or failed, step limit) a skill stops at once and reports
:data:`EPISODE_OVER`.

Example:
    >>> from skills import get_skill
    >>> get_skill("sw_take").name
    'sw_take'
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from planner.schemas import SkillCall
from scenes.base import Action, SceneObs

from .base import Outcome, Skill, SkillContext, failed
from .registry import register_skill

EPISODE_OVER = "the episode is over"
"""Reason of a skill that stopped because ScienceWorld ended the episode."""
TEXT_SKILL_STEPS = 24
"""Step budget of one text-skill call (answers to ambiguity prompts count too); ``sw_wait``: two per tick.
The episode's own limit is ScienceWorld's step limit; the context's ``max_steps`` can stay large."""


class TextMemory(Protocol):
    """What the text skills read of the agent's memory; ``record`` is called after every command."""

    @property
    def room(self) -> str | None:
        """The room the agent is in, as last seen."""
        ...

    @property
    def doors(self) -> Mapping[str, Mapping[str, bool]]:
        """Per room looked at, its doors: ``{next room: door open}`` (:mod:`skills.sciworld_rooms` walks them)."""
        ...

    def holds(self, name: str) -> bool:
        """True when the agent carries an object of this name."""
        ...

    def record(self, obs: SceneObs) -> None:
        """Update from one observation (reply + look + inventory)."""
        ...


@dataclass(kw_only=True)
class TextSkillContext(SkillContext):
    """A SkillContext for ScienceWorld: the memory and text readers the text skills need.

    Attributes:
        memory: The agent's memory of the rooms; updated after every command.
        parse_choices: The numbered options of an "Ambiguous request" reply (``scenes.sciworld.parse_choices``).
        read_temperature: The temperature a thermometer reply reports, or None.
        substance_in: The name the task's substance has in a vessel now (``steam``), or None when it is not in it.
        transcript: Every command and reply so far (appended to by the skills).
        placed: The device the vessel was last put in/on; None while it is carried.
        last_reading: What the last ``sw_measure`` read, or None.
        teleport: ScienceWorld offers ``teleport to`` (its ``easy`` or ``teleportAction`` simplification);
            False: ``sw_go_to`` walks through doors.
    """

    memory: TextMemory
    parse_choices: Callable[[str], list[str]]
    read_temperature: Callable[[str], float | None]
    substance_in: Callable[[str], str | None]
    transcript: list[str] = field(default_factory=list)
    placed: str | None = None
    last_reading: float | None = None
    teleport: bool = True
    _budget_end: int = field(default=0, init=False, repr=False)

    @property
    def reply(self) -> str:
        """ScienceWorld's reply to the last command."""
        return str(self.obs.extra.get("observation", ""))


class _EpisodeOver(Exception):
    """ScienceWorld ended the episode: the skill stops sending commands."""


class _OverBudget(Exception):
    """The skill call used its step budget."""


def send(ctx: TextSkillContext, command: str, prefer: Sequence[str] = ()) -> tuple[bool, str]:
    """Send one command (answering an ambiguity prompt by ``prefer``); return (ok, reply).

    Raises:
        _EpisodeOver: the episode had ended before, or ended with this command (the skill wrapper reports it).
        _OverBudget: the skill call has no steps left.
    """
    if ctx.terminated:
        raise _EpisodeOver()
    if len(ctx.actions) >= ctx._budget_end:
        raise _OverBudget()
    ok = ctx.act(Action(name="Text", args={"command": command}))
    reply = ctx.reply
    _log(ctx, command, reply)
    if reply.startswith("Ambiguous request"):
        options = ctx.parse_choices(reply)
        pick = next((i for i, o in enumerate(options) if all(p in o for p in prefer)), None)
        if pick is None:
            pick = next((i for i, o in enumerate(options) if any(p in o for p in prefer)), 0)
        ok = ctx.act(Action(name="Text", args={"command": str(pick)}))
        reply = ctx.reply
        _log(ctx, str(pick), reply)
    ctx.memory.record(ctx.obs)
    if ctx.terminated:
        raise _EpisodeOver()
    return ok, reply


def _log(ctx: TextSkillContext, command: str, reply: str) -> None:
    extra = ctx.obs.extra
    ctx.transcript.append(f"> {command} [score {extra.get('score')}, moves {extra.get('moves')}]\n{reply.strip()}")


class TextSkill(Skill):
    """A skill made of ScienceWorld commands. Subclasses implement ``act`` with :func:`send`."""

    max_steps: ClassVar[int] = TEXT_SKILL_STEPS

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        """A TextSkillContext, a target when the skill needs one, and an episode still running."""
        if not isinstance(ctx, TextSkillContext):
            return [f"skill {self.name!r} needs a skills.sciworld.TextSkillContext (ScienceWorld's text)"]
        unmet = [f"skill {self.name!r} needs a target"] if self.needs_target and not call.target else []
        if ctx.terminated:
            unmet.append(EPISODE_OVER)
        return unmet

    def budget(self, call: SkillCall) -> int:
        """Steps this call may use."""
        return self.max_steps

    def run(self, call: SkillCall, ctx: SkillContext) -> Outcome | tuple[bool, str]:
        """Run ``act`` within the step budget; an ended episode or an exhausted budget is a failure."""
        if not isinstance(ctx, TextSkillContext):  # checked by unmet_preconditions; narrows the type
            return False, "not a TextSkillContext"
        ctx._budget_end = len(ctx.actions) + self.budget(call)
        try:
            return self.act(call, ctx)
        except _EpisodeOver:
            return False, EPISODE_OVER
        except _OverBudget:
            return False, f"step budget of {self.budget(call)} exhausted"

    @abstractmethod
    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome | tuple[bool, str]:
        """Carry the call out through :func:`send`; return (ok, reason), or an Outcome naming the blamed object."""


def _prefer(call: SkillCall) -> tuple[str, ...]:
    return tuple(call.args.get("prefer") or ())


def take(ctx: TextSkillContext, name: str, prefer: Sequence[str] = ()) -> bool:
    """Pick ``name`` up into the inventory; a few phrasings, as ScienceWorld's parser is picky."""
    if ctx.memory.holds(name):
        return True
    prefer = tuple(prefer) or ((f"in {ctx.placed}",) if ctx.placed else (ctx.memory.room or "",))
    for cmd in (f"pick up {name}", f"move {name} to inventory"):
        ok, _ = send(ctx, cmd, prefer=prefer)
        if ok:
            break
    else:
        send(ctx, "wait1")  # a substance changing state mid-tick confuses the parser for one tick
        ok, _ = send(ctx, f"pick up {name}", prefer=prefer)
    if ok and ctx.memory.holds(name):
        ctx.placed = None
    return ok


@register_skill
class Teleport(TextSkill):
    """Go to a room (``target``), ScienceWorld's ``teleport`` (the ``easy`` simplification)."""

    name = "sw_teleport"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
        room = call.target or ""
        if ctx.memory.room == room:
            return True, "already there"
        ok, reply = send(ctx, f"teleport to {room}")
        return (True, "") if ok else (False, f"cannot reach the {room}: {reply}")


@register_skill
class OpenText(TextSkill):
    """Open a container or a device door (``target``, a ScienceWorld name); the reply is not judged."""

    name = "sw_open"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
        ok, reply = send(ctx, f"open {call.target}", prefer=_prefer(call))
        return ok, "" if ok else reply.strip()


@register_skill
class Take(TextSkill):
    """Pick an object up into the inventory (``args["prefer"]``: words of the wanted one among twins)."""

    name = "sw_take"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
        name = call.target or ""
        if take(ctx, name, _prefer(call)):
            return True, ""
        return False, f"could not pick up the {name}"


@register_skill
class Focus(TextSkill):
    """Focus on the task's substance in a vessel (``target``), as every change-of-state task asks first.

    ``args["name"]`` is the substance's current name; ``args["substance"]`` is True when the vessel holds it
    as a substance object, so ``focus on substance in <vessel>`` names exactly the one carried (a plain
    ``focus on water`` may pick another object).
    """

    name = "sw_focus"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
        vessel, name = call.target or "", str(call.args.get("name", ""))
        here = ("inventory",) if ctx.memory.holds(vessel) else ()
        cmds = ([f"focus on substance in {vessel}"] if call.args.get("substance") else []) + [f"focus on {name}"]
        for cmd in cmds:
            ok, reply = send(ctx, cmd, prefer=(vessel, *here))
            if ok and reply.startswith("You focus"):
                return True, ""
        return False, f"could not focus on {name}"


@register_skill
class FillWithWater(TextSkill):
    """Fill a carried vessel (``target``) at a water source (``receptacle``, in room ``args["room"]``).

    Put the vessel in the source, activate it, wait a tick, deactivate it, take the vessel back. When the
    source does not activate, the reason is ScienceWorld's reply (``The sink appears broken, ...``), blamed
    on the source (fault ``broken``, or ``faulty`` for another refusal); the vessel stays there. Whether water
    arrived is for the caller to check.
    """

    name = "sw_fill"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        vessel, source, room = call.target or "", call.receptacle or "", str(call.args.get("room", ""))
        ok, _ = send(ctx, f"move {vessel} to {source}", prefer=("inventory",))
        if ok:
            ctx.placed = source
        ok, reply = send(ctx, f"activate {source}", prefer=(room,))
        if not ok:
            return failed(reply, "broken" if "broken" in reply else "faulty", source)
        send(ctx, "wait1")
        send(ctx, f"deactivate {source}", prefer=(room,))
        take(ctx, vessel)
        return Outcome(True)


@register_skill
class Transfer(TextSkill):
    """Get a substance (``target``) into a carried vessel (``receptacle``).

    ``args``: ``parent`` (what holds the substance, e.g. ``glass cup``, or None), ``holder`` (where that
    sits: its container or the room), ``room`` and ``liquid`` (pour a liquid, move a solid). Tries pouring
    the parent and moving the substance, then picking it up and moving it; done when
    ``ctx.substance_in(vessel)`` sees it.
    """

    name = "sw_transfer"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
        name, vessel, args = call.target or "", call.receptacle or "", call.args
        parent, liquid = args.get("parent"), bool(args.get("liquid"))
        # ambiguity prompts list "... to metal pot (in inventory)": the carried vessel is the destination
        dest = f"{vessel} (in inventory"
        # ... and the source is the cup that holds the substance ("glass cup (in fridge, ..."), not its twin
        src = f"{parent} (in {args.get('holder')}"
        cmds = [(f"pour {parent} into {vessel}", (src, dest))] if parent and liquid else []
        cmds.append((f"move {name} to {vessel}", (f"{name} (in {parent or args.get('room')}", dest)))
        if parent and not liquid:
            cmds.append((f"pour {parent} into {vessel}", (src, dest)))
        for cmd, prefer in cmds:
            ok, _ = send(ctx, cmd, prefer=prefer)
            if ok and ctx.substance_in(vessel):
                return True, ""
        if take(ctx, name):
            ok, _ = send(ctx, f"move {name} to {vessel}", prefer=(dest,))
            if ok and ctx.substance_in(vessel):
                return True, ""
        return False, f"could not get {name} into the {vessel}"


@register_skill
class Place(TextSkill):
    """Put the carried vessel (``target``) on/in a device (``receptacle``) and, with ``args["activate"]``,
    switch it on.

    Reasons: ``broken`` when the device appears broken (fault ``broken``), ``failed: <reply>`` when the
    vessel cannot go there (fault ``blocked``); both blame the device. A device that does not switch on for
    another reason is left to the caller's watching.
    """

    name = "sw_place"

    def unmet_preconditions(self, call: SkillCall, ctx: SkillContext) -> list[str]:
        """Also: the vessel must be carried."""
        unmet = super().unmet_preconditions(call, ctx)
        if not unmet and isinstance(ctx, TextSkillContext) and not ctx.memory.holds(call.target or ""):
            unmet.append(f"the agent does not carry the {call.target}")
        return unmet

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        vessel, device = call.target or "", call.receptacle or ""
        ok, reply = send(ctx, f"move {vessel} to {device}", prefer=("inventory",))
        if not ok:
            return failed(f"failed: {reply.strip()[:80]}", "blocked", device)
        ctx.placed = device
        if call.args.get("activate"):
            ok, reply = send(ctx, f"activate {device}", prefer=(str(call.args.get("room", "")),))
            if not ok and "broken" in reply:
                return failed("broken", "broken", device)
        return Outcome(True)


@register_skill
class Measure(TextSkill):
    """Read the carried thermometer on the substance in a vessel (``target``); the reading goes to
    ``ctx.last_reading``. Tries ``substance in <vessel>``, then the substance's name."""

    name = "sw_measure"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
        vessel = call.target or ""
        ctx.last_reading = None
        _, reply = send(ctx, f"use thermometer in inventory on substance in {vessel}", prefer=("inventory",))
        reading = ctx.read_temperature(reply)
        if reading is None:
            name = ctx.substance_in(vessel)
            if name:
                _, reply = send(ctx, f"use thermometer in inventory on {name}", prefer=(vessel,))
                reading = ctx.read_temperature(reply)
        ctx.last_reading = reading
        return (True, f"{reading:g} C") if reading is not None else (False, "no reading")


@register_skill
class WaitTicks(TextSkill):
    """Let ScienceWorld's time pass: ``wait1`` (or ``args["command"]``) ``args["ticks"]`` times (default 1)."""

    name = "sw_wait"
    needs_target = False

    def budget(self, call: SkillCall) -> int:
        """Two steps per tick (a wait can meet an ambiguity prompt)."""
        return 2 * int(call.args.get("ticks", 1))

    def act(self, call: SkillCall, ctx: TextSkillContext) -> tuple[bool, str]:
        # ``args["command"]="wait"``: ScienceWorld's ten-tick wait per call (fewer moves for long waits)
        for _ in range(int(call.args.get("ticks", 1))):
            send(ctx, str(call.args.get("command", "wait1")))
        return True, ""


__all__ = [
    "EPISODE_OVER",
    "TEXT_SKILL_STEPS",
    "FillWithWater",
    "Focus",
    "Measure",
    "OpenText",
    "Place",
    "Take",
    "Teleport",
    "TextMemory",
    "TextSkill",
    "TextSkillContext",
    "Transfer",
    "WaitTicks",
    "send",
    "take",
]
