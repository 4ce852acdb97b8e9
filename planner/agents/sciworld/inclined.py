"""The inclined-plane play: slide a block down each plane, read how far it got, focus on the answer.

The three inclined-plane tasks name two planes (by letter, by surface, or by an unknown material) and ask
for the one with the shallowest angle or the most friction (or their opposites). Both make the block slide
more slowly, so one experiment answers all of them: the block is put at the top of each plane with the
stopwatch running, and after the same number of ticks the text says how far down it is ("a wood block
approximately 47% down the plane"). The slower plane is the shallower / rougher one.
"""

from __future__ import annotations

import re

from .episode import Stuck
from .memory import SeenObject
from .player import TaskPlayer, where
from .select import referent
from .spec import TaskSpec

SLIDE_TICKS = 3
"""Ticks the block slides before its position is compared (a tie is slid longer)."""
_DOWN = re.compile(r"approximately (\d+)% down the plane")
SLIDERS: tuple[str, ...] = ("block", "brick", "cube", "weight")
"""Head nouns of objects that slide down a plane (the experiment's load)."""
SLOW_WINS = ("shallowest angle", "most friction")
"""What the task asks for when the slower plane is the answer."""


def _planes(p: TaskPlayer) -> list[SeenObject]:
    return [e for e in p.memory.entries() if e.obj.name.startswith("inclined plane") and e.room != "inventory"]


def _label_of(plane: str, labels: list[str]) -> str | None:
    low = plane.lower()
    return next((lab for lab in labels if re.search(rf"(?<![a-z]){re.escape(lab.lower())}(?![a-z])", low)), None)


def _slide(p: TaskPlayer, plane: SeenObject, block: str, ticks: int) -> float:
    """Put the block on the plane, let it slide ``ticks`` ticks, return how far down it is (percent)."""
    p.here(plane)
    label = plane.obj.name
    if not p.memory.holds(block):
        p.skill("sw_pick_up", block)
    p.must("sw_move", block, label, prefer=["inventory", label])
    if p.memory.holds("stopwatch"):
        p.skill("sw_switch", "stopwatch", on=True, prefer=["inventory"])
    down = 0.0
    for _ in range(ticks):
        p.skill("sw_wait", ticks=1)
        res = p.skill("sw_look_at", label, prefer=[label])
        text = res.reason if res.ok else ""
        m = _DOWN.search(text)
        if m is not None:
            down = float(m.group(1))
        elif "at the top" in text:  # too rough or too flat to start sliding
            down = 0.0
        else:  # at the bottom, or off the plane's text: it got all the way down
            down = 100.0
            break
    if p.memory.holds("stopwatch"):
        p.skill("sw_switch", "stopwatch", on=False, prefer=["inventory"])
    p.skill("sw_pick_up", block)
    return down


def play_inclined(p: TaskPlayer, spec: TaskSpec) -> None:
    """Compare the two planes by how far the block slides, and focus on the one the task asks for."""
    labels = [x.strip() for x in spec.target.split(",") if x.strip()]

    def blocks() -> list[SeenObject]:
        return [e for e in p.memory.entries() if referent(e.obj.name).split()[-1] in SLIDERS]

    p.explore(("workshop",), until=lambda: len(_planes(p)) >= 2 and bool(blocks()))
    planes = {lab: e for e in _planes(p) if (lab := _label_of(e.obj.name, labels)) is not None}
    if len(planes) < 2 or not blocks():
        raise Stuck(f"planes {labels} or a block not found")
    watch = next((e for e in p.memory.entries() if referent(e.obj.name) == "stopwatch"), None)
    if watch is not None and watch.room == planes[labels[0]].room:
        p.fetch(watch)
    block = p.fetch(blocks()[0])
    ticks = SLIDE_TICKS
    for _ in range(3):
        down = {lab: _slide(p, e, block, ticks) for lab, e in planes.items()}
        if len(set(down.values())) > 1 and max(down.values()) < 100.0 or min(down.values()) < max(down.values()):
            break
        ticks = max(1, ticks - 1) if max(down.values()) >= 100.0 else ticks + 2  # too fast / too close
    slow = spec.kind in SLOW_WINS
    pick = (min if slow else max)(down, key=lambda lab: down[lab])
    p._run.answer = ", ".join(f"{lab}: {v:g}% in {ticks} ticks" for lab, v in down.items()) + f" -> {pick}"
    chosen = planes[pick]
    p.here(chosen)
    p.must("sw_focus_on", chosen.obj.name, prefer=[where(chosen), pick])


__all__ = ["SLIDERS", "SLIDE_TICKS", "SLOW_WINS", "play_inclined"]
