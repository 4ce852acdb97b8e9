"""What the reader has gathered of a request so far (:class:`_Evidence`), filled in by
:class:`~planner.understanding.evidence._EvidenceReader` clause by clause and turned into a TaskSpec by
:mod:`planner.understanding.spec`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..schemas import Target


@dataclass
class _Evidence:
    roles: dict[str, tuple[str, ...]]
    """utility -> required types (empty: any object of the utility)."""
    targets: list[Target]
    notes: list[str]
    frame: bool
    text: str = ""
    request: bool = False
    state: bool = False
    """A state names what the request needs ("my legs are tired", "it's pitch black")."""
    task_sims: dict[str, float] = field(default_factory=dict)
    """COAT task -> its similarity to the request (the tasks a reading may use)."""
    prefer: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """utility -> types that win a tie (the verb names them: toast -> Toaster)."""
    sources: dict[str, str] = field(default_factory=dict)
    """utility -> the COAT task whose roles it came from (its annotations decide it)."""
    avoid: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """utility -> types the request rules out ("not on the floor")."""
    expected: tuple[str, ...] = ()
    """The utilities of every clause's verb: a thing fetched in one clause serves the verb of another."""
    verbs: set[str] = field(default_factory=set)
    """The clauses' verbs (base forms): a role borrows a COAT task named with one of them when there is one."""
    place: tuple[str, ...] = ()
    """Where the target is put when COAT gives that place no utility ("hang the towel on the towel holder"): a
    target of the task, not a role."""
    placed: str = ""
    """The name of the target put on :attr:`place` (``target``, or ``placed`` when another clause's thing is the
    target: "slice the apple and hang the towel up")."""
    explicit: int = 0
    """How many clauses the request's own words read whole: a thing put in / on a named place that serves a role
    ("put the apple on a plate"), or set to a state ("close the fridge")."""
    set_states: dict[str, tuple[str, bool]] = field(default_factory=dict)
    """Target name -> the state property and value a state verb sets it to ("turn off the lamp": the lamp's
    ``isToggled`` false; :data:`~planner.understanding.frames.STATE_VERBS`)."""
    counts: dict[tuple[str, ...], int | str] = field(default_factory=dict)
    """Types -> how many the request asks for ("two eggs"; ``"every"``: "all the lights")."""
    asks: bool = False
    """Some clause of the request is worded as a request: a place in a clause that is not one says where a thing is
    now ("Tom's left his dumbbells on the floor ... put them on a shelf"), not where it goes."""
    fetched: bool = False
    """A thing the request fetches was read as a role's object ("bring me the mug"): no target is guessed."""
    brought: list[str] = field(default_factory=list)
    """Targets fetched for the person ("bring me the mug"): each ends with the robot."""
    joined: bool = False
    """The clause being read is a thing joined by "and" to the one before: a second target of the same verb."""
    own_words: bool = False
    """The request's words say all it asks (a state set, or every clause read whole): no role is borrowed from a
    similar example, the role classifier or the nearest COAT task."""

    def set_state(self, types: tuple[str, ...], state: tuple[str, bool]) -> bool:
        """A thing of ``types`` ends in ``state``: a new ``switched`` target (never ``target``: that is the thing
        another clause acts on), or the one set before ("open the fridge ... and close the fridge": the last state
        holds). True when the target is new."""
        same = next((t.name for t in self.targets if t.name in self.set_states and set(t.types) == set(types)), None)
        if same is None:
            taken = {t.name for t in self.targets}
            same = next(n for n in ("switched", *(f"switched{i}" for i in range(2, 99))) if n not in taken)
            self.targets.append(Target(name=same, types=types))
        new = same not in self.set_states
        self.set_states[same] = state
        return new
