"""ScienceWorld text skills on single objects: focus, move, drop, activate, connect, look at, measure.

These are the skills every ScienceWorld task shape shares beyond the change-of-state ones of
:mod:`skills.sciworld`: focusing on an object (which ScienceWorld scores, and which ends the episode when the
object is wrong), moving an object into a container or a box, closing a door, connecting two electrical
terminals, looking at one object (a light bulb's "which is on"), and reading the carried thermometer on an
object. Each sends
ScienceWorld's own commands through :func:`skills.sciworld.send` and judges the reply; ``args["prefer"]``
answers an "Ambiguous request" prompt (the option holding all the words, else any).

Example:
    >>> from skills import get_skill
    >>> get_skill("sw_connect").name
    'sw_connect'
"""

from __future__ import annotations

from planner.schemas import SkillCall

from .base import Outcome, failed
from .registry import register_skill
from .sciworld import TextSkill, TextSkillContext, send, take


def _prefer(call: SkillCall) -> tuple[str, ...]:
    return tuple(call.args.get("prefer") or ())


@register_skill
class FocusOn(TextSkill):
    """Focus on an object (``target``, its ScienceWorld name). Done when ScienceWorld answers "You focus"."""

    name = "sw_focus_on"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"focus on {call.target}", prefer=_prefer(call))
        if ok and reply.startswith("You focus"):
            return Outcome(True)
        return failed(f"could not focus on {call.target}: {reply.strip()[:80]}", "missing", call.target)


@register_skill
class TakeObject(TextSkill):
    """Pick an object (``target``) up into the inventory; blamed as missing when it cannot be taken."""

    name = "sw_pick_up"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        if take(ctx, call.target or "", _prefer(call)):
            return Outcome(True)
        return failed(f"could not pick up the {call.target}", "missing", call.target)


@register_skill
class MoveTo(TextSkill):
    """Move an object (``target``) into/onto ``receptacle`` (a box, a pot, a stove). Judged on the reply."""

    name = "sw_move"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"move {call.target} to {call.receptacle}", prefer=_prefer(call) or ("inventory",))
        if ok and reply.startswith("You move"):
            ctx.placed = call.receptacle
            return Outcome(True)
        return failed(f"could not move the {call.target} to the {call.receptacle}: {reply.strip()[:80]}",
                      "blocked", call.receptacle)


@register_skill
class Pour(TextSkill):
    """Pour the contents of a container (``target``) into another (``receptacle``): how a liquid moves."""

    name = "sw_pour"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"pour {call.target} into {call.receptacle}", prefer=_prefer(call))
        if ok and not reply.startswith(("No known", "You can't", "There is nothing")):
            return Outcome(True, reply.strip()[:80])
        return failed(f"could not pour the {call.target} into the {call.receptacle}: {reply.strip()[:80]}",
                      "blocked", call.receptacle)


@register_skill
class Mix(TextSkill):
    """Mix what a container (``target``) holds; the reply names the product (``... mix to produce green
    paint.``), kept as the result's reason."""

    name = "sw_mix"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"mix {call.target}", prefer=_prefer(call))
        if ok and "produce" in reply:
            return Outcome(True, reply.strip())
        return failed(f"mixing the {call.target} made nothing: {reply.strip()[:80]}", "faulty", call.target)


@register_skill
class UseOn(TextSkill):
    """Use a carried tool (``target``) on something (``receptacle``): a shovel on the ground digs soil."""

    name = "sw_use"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"use {call.target} on {call.receptacle}", prefer=_prefer(call))
        if ok and not reply.startswith(("No known", "I'm not sure", "It's not clear")):
            return Outcome(True, reply.strip()[:80])
        return failed(f"using the {call.target} on the {call.receptacle} did nothing: {reply.strip()[:80]}",
                      "faulty", call.target)


@register_skill
class Read(TextSkill):
    """Read a readable object (``target``: a recipe, a book); the text read is the result's reason."""

    name = "sw_read"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"read {call.target}", prefer=_prefer(call))
        return Outcome(True, reply.strip()) if ok else failed(reply.strip()[:80], "missing", call.target)


@register_skill
class Drop(TextSkill):
    """Drop a carried object (``target``) in the current room."""

    name = "sw_drop"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"drop {call.target}", prefer=("inventory",))
        if ok and not ctx.memory.holds(call.target or ""):
            return Outcome(True)
        return failed(f"could not drop the {call.target}: {reply.strip()[:80]}", "blocked", call.target)


@register_skill
class Switch(TextSkill):
    """Activate (``args["on"]`` True, the default) or deactivate a device (``target``).

    A device that "appears broken" is blamed with fault ``broken``.
    """

    name = "sw_switch"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        verb = "activate" if call.args.get("on", True) else "deactivate"
        ok, reply = send(ctx, f"{verb} {call.target}", prefer=_prefer(call))
        if "broken" in reply:
            return failed("broken", "broken", call.target)
        if ok or "already" in reply:
            return Outcome(True)
        return failed(f"could not {verb} the {call.target}: {reply.strip()[:80]}", "faulty", call.target)


@register_skill
class CloseText(TextSkill):
    """Close a door or a container (``target``: ``door to outside``, ``bee hive``). Done when ScienceWorld answers
    "... is now closed" (or that it already is)."""

    name = "sw_close"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"close {call.target}", prefer=_prefer(call))
        if "now closed" in reply or "already closed" in reply:
            return Outcome(True)
        return failed(f"could not close the {call.target}: {reply.strip()[:80]}", "faulty", call.target)


@register_skill
class Connect(TextSkill):
    """Connect two terminals: ``target`` and ``receptacle`` are ``<object> <terminal>`` (``battery anode``,
    ``black wire terminal 1``). Done when ScienceWorld answers "... is now connected to ...". """

    name = "sw_connect"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"connect {call.target} to {call.receptacle}", prefer=_prefer(call))
        if "now connected" in reply or "already connected" in reply:
            return Outcome(True)
        return failed(f"could not connect {call.target} to {call.receptacle}: {reply.strip()[:80]}",
                      "faulty", call.target)


@register_skill
class LookAt(TextSkill):
    """Look at one object (``target``); its description is the result's reason (a free action)."""

    name = "sw_look_at"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ok, reply = send(ctx, f"look at {call.target}", prefer=_prefer(call))
        return Outcome(True, reply.strip()) if ok else failed(reply.strip()[:80], "missing", call.target)


@register_skill
class UseThermometer(TextSkill):
    """Read the carried thermometer on an object (``target``); the reading goes to ``ctx.last_reading``."""

    name = "sw_thermometer"

    def act(self, call: SkillCall, ctx: TextSkillContext) -> Outcome:
        ctx.last_reading = None
        _, reply = send(ctx, f"use thermometer in inventory on {call.target}", prefer=_prefer(call))
        reading = ctx.read_temperature(reply)
        ctx.last_reading = reading
        if reading is None:
            return failed(f"no reading on the {call.target}: {reply.strip()[:80]}", "missing", "thermometer")
        return Outcome(True, f"{reading:g} C")


__all__ = ["CloseText", "Connect", "Drop", "FocusOn", "LookAt", "Mix", "MoveTo", "Pour", "Read", "Switch", "TakeObject",
           "UseOn", "UseThermometer"]
