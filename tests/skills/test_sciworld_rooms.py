"""Walking between ScienceWorld's rooms without teleport (skills/sciworld_rooms.py): the room graph read from
recorded ``look around`` text, the route chosen over it, and ``sw_go_to`` on a scripted house (no JVM).

The looks are ScienceWorld 1.2.3's text without a simplification (doors closed at the start).
"""

from __future__ import annotations

from typing import Any

from perception.sciworld_text import read_doors
from planner.schemas import SkillCall
from scenes.base import Action, SceneEnv, SceneObs
from skills import get_skill
from skills.sciworld import TextSkillContext
from skills.sciworld_rooms import likely_via, nearest_unseen, route, walk_order

HALLWAY = """This room is called the hallway. In it, you see: 
\tthe agent
\ta substance called air
\ta finger painting
You also see:
\tA door to the art studio (that is closed)
\tA door to the bedroom (that is closed)
\tA door to the greenhouse (that is closed)
\tA door to the kitchen (that is closed)
\tA door to the living room (that is open)
\tA door to the workshop (that is closed)
"""
OUTSIDE = """This outside location is called the outside. Here you see: 
\tthe agent
\ta fountain (containing a substance called water)
\tthe ground
You also see:
\tA door to the foundry (that is closed)
\tA door to the greenhouse (that is open)
\tA door to the kitchen (that is closed)
"""
LIVING_ROOM = """This room is called the living room. In it, you see: 
\tthe agent
\ta couch. On the couch is: a white pillow.
You also see:
\tA door to the hallway (that is closed)
"""

HOUSE: dict[str, tuple[str, ...]] = {
    "hallway": ("art studio", "bedroom", "greenhouse", "kitchen", "living room", "workshop"),
    "kitchen": ("bathroom", "hallway", "outside"), "bathroom": ("kitchen",), "greenhouse": ("hallway", "outside"),
    "outside": ("foundry", "greenhouse", "kitchen"), "foundry": ("outside",), "workshop": ("hallway",),
    "art studio": ("hallway",), "bedroom": ("hallway",), "living room": ("hallway",),
}
"""ScienceWorld's house (as walked on a train variation): each room's doors."""


def test_doors_are_read_from_a_look() -> None:
    assert read_doors(HALLWAY) == ("hallway", {"art studio": False, "bedroom": False, "greenhouse": False,
                                               "kitchen": False, "living room": True, "workshop": False})
    assert read_doors(OUTSIDE) == ("outside", {"foundry": False, "greenhouse": True, "kitchen": False})
    assert read_doors("You move to the hallway.") == (None, {})
    # an object's own door ("The bee hive door is closed") is not a way out
    assert read_doors("This room is called the greenhouse. In it, you see: \n\ta bee hive. The bee hive door is "
                      "closed. \nYou also see:\n\tA door to the hallway (that is open)\n")[1] == {"hallway": True}


def test_the_route_takes_the_fewest_doors_over_what_was_seen() -> None:
    doors = dict([read_doors(LIVING_ROOM), read_doors(HALLWAY), read_doors(OUTSIDE)])
    assert route(doors, "living room", "workshop") == ["hallway", "workshop"]
    assert route(doors, "hallway", "hallway") == []
    # the outside was looked at: its doors lead back (the greenhouse joins the hallway and the outside)
    assert route(doors, "living room", "foundry") == ["hallway", "greenhouse", "outside", "foundry"]
    assert route(doors, "hallway", "moon") is None
    # exploring: the nearest room a door names but nobody looked at (ties: in the order the doors were seen)
    assert nearest_unseen(doors, "living room") == ["hallway", "art studio"]
    assert nearest_unseen({"living room": {"hallway": False}}, "living room") == ["hallway"]
    assert likely_via("foundry") == ("outside", "kitchen", "greenhouse") and likely_via("bedroom") == ("hallway",)
    assert nearest_unseen(doors, "living room", likely_via("foundry")) == ["hallway", "greenhouse"]
    assert nearest_unseen({r: {n: True for n in ns} for r, ns in HOUSE.items()}, "kitchen") is None
    assert walk_order(doors, "hallway", ["foundry", "kitchen", "moon", "workshop"]) == [
        "kitchen", "workshop", "foundry", "moon"]


class House(SceneEnv[SceneObs, Action]):
    """ScienceWorld's house in text: closed doors, ``open door to X`` and ``go to X`` as ScienceWorld answers them."""

    def __init__(self, start: str = "living room", open_doors: bool = False) -> None:
        self.room = start
        self.open = {frozenset((a, b)): open_doors for a, ns in HOUSE.items() for b in ns}
        self.sent: list[str] = []

    def look(self) -> str:
        head = ("This outside location is called the outside. Here you see: " if self.room == "outside"
                else f"This room is called the {self.room}. In it, you see: ")
        state = {n: "open" if self.open[frozenset((self.room, n))] else "closed" for n in HOUSE[self.room]}
        doors = "".join(f"\tA door to the {n} (that is {s})\n" for n, s in state.items())
        return f"{head}\n\tthe agent\nYou also see:\n{doors}"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[SceneObs, dict]:
        return self._obs(self.look()), {}

    def step(self, action: Action) -> tuple[SceneObs, float, bool, bool, dict[str, Any]]:
        cmd = str(action.args["command"])
        self.sent.append(cmd)
        reply = "No known action matches that input."
        for verb in ("open door to ", "go to "):
            n = cmd.removeprefix(verb)
            if cmd.startswith(verb) and n in HOUSE[self.room]:
                door = frozenset((self.room, n))
                if verb == "open door to ":
                    reply = "The door is already open." if self.open[door] else "The door is now open."
                    self.open[door] = True
                elif not self.open[door]:
                    reply = "The door is not open."
                else:
                    self.room, reply = n, f"You move to the {n}."
        ok = not reply.startswith(("No known", "The door is not"))
        return self._obs(reply), 0.0, False, False, {"action_success": ok, "error": ""}

    def render(self) -> str | None:
        return None

    def close(self) -> None:
        pass

    def _obs(self, reply: str) -> SceneObs:
        return SceneObs(text=reply, extra={"observation": reply, "look": self.look(), "score": 0,
                                           "moves": len(self.sent)})


class Memory:
    """The part of the agent's memory ``sw_go_to`` reads: the room it is in and the doors seen."""

    def __init__(self) -> None:
        self.room: str | None = None
        self.doors: dict[str, dict[str, bool]] = {}

    def holds(self, name: str) -> bool:
        return False

    def record(self, obs: SceneObs) -> None:
        room, doors = read_doors(str(obs.extra.get("look", "")))
        if room:
            self.room, self.doors[room] = room, doors


def _go(env: House, room: str, teleport: bool = False) -> tuple[bool, str, TextSkillContext]:
    obs, _ = env.reset()
    memory = Memory()
    memory.record(obs)
    ctx = TextSkillContext(env=env, obs=obs, max_steps=1000, memory=memory, parse_choices=lambda _r: [],
                           read_temperature=lambda _r: None, substance_in=lambda _v: None, teleport=teleport)
    res = get_skill("sw_go_to")(SkillCall(skill="sw_go_to", target=room), ctx)
    return res.ok, res.reason, ctx


def test_go_to_opens_the_doors_on_the_way() -> None:
    env = House()
    ok, _, ctx = _go(env, "greenhouse")
    assert ok and env.room == "greenhouse" and ctx.memory.room == "greenhouse"
    assert env.sent == ["open door to hallway", "go to hallway", "open door to greenhouse", "go to greenhouse"]


def test_go_to_explores_for_a_room_no_seen_door_names() -> None:
    env = House()
    ok, _, _ = _go(env, "foundry")
    assert ok and env.room == "foundry"
    # the hallway names no foundry: the greenhouse is looked into first (the outdoors opens off it, LIKELY_VIA),
    # its doors name the outside, whose doors name the foundry
    assert [c.removeprefix("go to ") for c in env.sent if c.startswith("go to ")] == [
        "hallway", "greenhouse", "outside", "foundry"]
    env = House()
    env.open = {d: True for d in env.open}
    ok, _, _ = _go(env, "bathroom")  # an indoor room: through the hallway, then the nearest unseen rooms
    assert ok and env.sent[:2] == ["go to hallway", "go to art studio"] and env.sent[-1] == "go to bathroom"


def test_go_to_opens_a_door_it_thought_open_and_says_why_a_room_is_out_of_reach() -> None:
    class Shut(House):  # the workshop's door shows open but is shut: "The door is not open."
        def look(self) -> str:
            return super().look().replace("workshop (that is closed)", "workshop (that is open)")

    env = Shut(start="hallway", open_doors=True)
    env.open[frozenset(("hallway", "workshop"))] = False
    ok, _, _ = _go(env, "workshop")
    assert ok and env.room == "workshop"
    assert env.sent == ["go to workshop", "open door to workshop", "go to workshop"]
    ok, why, _ = _go(House(), "moon")
    assert not ok and why == "cannot reach the moon: no door seen leads there"


def test_go_to_teleports_when_the_simplification_allows_it() -> None:
    env = House()
    ok, why, _ = _go(env, "foundry", teleport=True)
    assert env.sent == ["teleport to foundry"] and not ok and why.startswith("cannot reach the foundry")
