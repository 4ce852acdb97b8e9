"""The genetics play: breed the parent plants and decide from their offspring whether a trait is dominant.

``genetics`` (mendelian-genetics-known-plant, -unknown-plant): the task names a trait value ("tall plant
height") of a plant ("pea plant", "unknown E plant") and two answer boxes. Nothing about the plant's genetics
is known beforehand; the play runs the experiment Mendel ran, with the shared text skills:

1. plant the two seeds of the seed jar in free flower pots with soil (``sw_move``), close the doors and open
   the bee hive so the bees cross-pollinate the flowers (``sw_close``, ``sw_open``), and let time pass
   (``sw_wait``, ten ticks at a time);
2. read each plant's trait from the text once it shows (:func:`phenotype`; where a trait shows is data,
   ``data/traits.json``): a seed trait on the seed's name, a plant trait in the plant's "with ..." clause,
   a flower trait on its flowers;
3. the offspring: a seed trait is read on the seeds the parents set; for a plant or flower trait those
   seeds are planted in the free pots (``sw_move``) and read when they have grown;
4. decide with Mendel's model (:func:`~.heredity.dominance_probability`): focus on the "dominant" box when
   P(dominant) >= 1/2, as soon as P leaves [0.1, 0.9], when nothing more can be seen soon (every pot used
   and read), or when the step limit leaves no room for another wait.

Example:
    >>> t = read_trait("tall plant height")
    >>> (t.value, t.part, t.shows_on), phenotype(t, "pea", plant_text="a tall height")
    (('tall', 'plant', 'plant'), True)
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from .contracts import DeviceChoice
from .episode import Stuck
from .garden import grow_wait
from .heredity import Pedigree, dominance_probability
from .memory import SeenObject
from .player import TaskPlayer
from .select import referent
from .spec import TaskSpec, load_data
from .stages import _is_pot, _pot_with_new_soil

logger = logging.getLogger(__name__)

CONFIDENT = 0.9
"""Decide as soon as P(dominant) reaches this (or falls to 1 - this): 4 offspring of one value from parents
showing different values (:mod:`.heredity`)."""
WAIT_MOVES = 11
"""Moves one ``wait`` (ten ticks) costs in ScienceWorld."""
ANSWER_MOVES = 3
"""Moves kept for the answer (going to the box and focusing on it)."""
MAX_WAITS = 40
"""Ten-tick waits at most, whatever the step limit (an experiment that never ends is a failure)."""

_POT = re.compile(r"^\s*an? (?P<pot>[a-z ]*pot(?: \d+)?) \(containing (?P<inner>.*)\)\s*$")
_PLANT = re.compile(r"an? (?P<name>[A-Za-z ]+? plant) in the (?P<stage>\w+) stage(?: with (?P<feat>[^.,]+))?"
                    r"(?:\. On the [^:]+? you see: (?P<on>.*?)\.\s*(?=,|$))?")
_ARTICLE = re.compile(r"^(?:a substance called|an?|the)\s+")


# ---------------------------------------------------------------- reading traits from the text
@dataclass(frozen=True)
class Trait:
    """A trait value as a task names it (``tall plant height``) and where it shows in the text."""

    value: str
    part: str
    aspect: str
    shows_on: str
    nouns: tuple[str, ...] = ()

    @property
    def words(self) -> str:
        """The task's words for it."""
        return f"{self.value} {self.part} {self.aspect}"


def read_trait(kind: str) -> Trait:
    """Read ``<value> <part> <aspect>`` (``round seed shape``) and look up where the part shows (traits.json).

    Raises:
        Stuck: the words are not three (the play cannot tell what to read).
    """
    words = kind.strip().lower().split()
    if len(words) != 3:
        raise Stuck(f"cannot read the trait {kind!r} as '<value> <part> <aspect>'")
    value, part, aspect = words
    facts = load_data("traits")["parts"].get(part, {"shows_on": "plant", "nouns": [part, aspect]})
    return Trait(value, part, aspect, str(facts["shows_on"]), tuple(facts.get("nouns", ())))


@dataclass(frozen=True)
class PotView:
    """One flower pot as the room text shows it: the plant growing there, what is on the plant, the rest."""

    pot: str
    plant: str = ""
    stage: str = ""
    features: tuple[str, ...] = ()
    on_plant: tuple[str, ...] = ()
    loose: tuple[str, ...] = ()

    def seeds(self, species: str) -> list[str]:
        """Names of the seeds set on the plant (``round green pea seed``)."""
        return [x for x in self.on_plant if x.endswith(f"{species} seed")]

    def flowers(self) -> list[str]:
        """Names of the flowers on the plant (``wilting small orange flower``)."""
        return [x for x in self.on_plant if x.endswith(" flower")]


def _items(text: str) -> tuple[str, ...]:
    return tuple(_ARTICLE.sub("", x.strip()) for x in text.split(",") if x.strip())


def read_pots(look: str) -> dict[str, PotView]:
    """Every flower pot of a room's text, by name (``flower pot 3``)."""
    out: dict[str, PotView] = {}
    for line in look.splitlines():
        m = _POT.match(line)
        if m is None:
            continue
        inner = m.group("inner")
        p = _PLANT.search(inner)
        if p is None:
            out[m.group("pot")] = PotView(m.group("pot"), loose=_items(inner))
            continue
        rest = inner[: p.start()] + inner[p.end():]
        feats = tuple(f.strip() for f in re.split(r"\band\b", p.group("feat") or "") if f.strip())
        out[m.group("pot")] = PotView(m.group("pot"), plant=p.group("name"), stage=p.group("stage"), features=feats,
                                      on_plant=_items(p.group("on") or ""), loose=_items(rest))
    return out


def phenotype(trait: Trait, species: str, *, seed: str = "", plant_text: str = "",
              flowers: tuple[str, ...] | list[str] = ()) -> bool | None:
    """Whether one individual shows the trait's value (False: it shows another value; None: not seen).

    ``seed`` is the individual's seed name, ``plant_text`` its plant's "with ..." clause, ``flowers`` the names
    of its flowers; the trait is read from the one data/traits.json names for its part.
    """
    ignore = set(load_data("traits")["ignore"])
    phrases: list[str] = []
    if trait.shows_on == "seed" and seed:
        phrases = [seed.lower().removesuffix(f"{species.lower()} seed")]
    elif trait.shows_on == "flower":
        phrases = [f.lower().removesuffix("flower") for f in flowers]
    elif trait.shows_on == "plant":
        items = [x.strip() for x in re.split(r"\band\b", plant_text.lower()) if x.strip()]
        phrases = [x for x in items if any(re.search(rf"\b{re.escape(n)}(?:e?s)?\b", x) for n in trait.nouns)]
    words = [set(ph.split()) - ignore for ph in phrases]
    words = [w for w in words if w]
    if not words:
        return None
    return any(trait.value in w for w in words)


def pot_phenotype(trait: Trait, species: str, view: PotView | None) -> bool | None:
    """What the plant in a pot shows (None while it has not grown far enough to show it)."""
    if view is None or not view.plant:
        return None
    return phenotype(trait, species, plant_text=" and ".join(view.features), flowers=view.flowers())


# ---------------------------------------------------------------- the experiment's record
@dataclass
class Offspring:
    """One seed set in the experiment: its mother (the pot of the plant it grew on), the plants that may have
    fathered it, its name, and where it was planted ("" while it is on its mother)."""

    mother: str
    fathers: tuple[str, ...]
    name: str
    pot: str = ""
    shows: bool | None = None


@dataclass
class Cross:
    """The plants of the experiment by pot, what each shows, and the seeds they set (one record per seed)."""

    trait: Trait
    species: str
    parents: list[str] = field(default_factory=list)
    parent_shows: dict[str, bool | None] = field(default_factory=dict)
    offspring: list[Offspring] = field(default_factory=list)
    flowered: set[str] = field(default_factory=set)
    _on: dict[str, int] = field(default_factory=dict)

    def plants(self) -> list[str]:
        """Pots of every plant in the experiment: the parents, then the planted offspring."""
        return self.parents + [o.pot for o in self.offspring if o.pot]

    def fathers(self, mother: str) -> tuple[str, ...]:
        """Who may have fathered a seed first seen now on ``mother``: any other plant seen in flower before
        this observation, and the other parents in any case (no seed sets without pollen)."""
        return tuple(x for x in dict.fromkeys([*self.parents, *sorted(self.flowered)]) if x != mother)

    def observe(self, pots: dict[str, PotView]) -> None:
        """Update from the room's pots: traits once shown, seeds newly set (with who may have fathered them)."""
        for pot in self.parents:
            if self.parent_shows.get(pot) is None:
                self.parent_shows[pot] = pot_phenotype(self.trait, self.species, pots.get(pot))
        for o in self.offspring:
            if o.pot and o.shows is None:
                o.shows = pot_phenotype(self.trait, self.species, pots.get(o.pot))
        for mother in self.plants():
            view = pots.get(mother)
            seeds = view.seeds(self.species) if view else []
            for name in seeds[self._on.get(mother, 0):]:
                shows = phenotype(self.trait, self.species, seed=name) if self.trait.shows_on == "seed" else None
                self.offspring.append(Offspring(mother, self.fathers(mother), name, shows=shows))
            self._on[mother] = len(seeds)
        self.flowered |= {pot for pot in self.plants() if pots.get(pot) is not None and pots[pot].flowers()}

    def planted(self, o: Offspring, pot: str) -> None:
        """A seed was moved from its mother into ``pot``: it grows there and is read there."""
        o.pot = pot
        self._on[o.mother] = max(0, self._on.get(o.mother, 0) - 1)

    def pedigree(self) -> Pedigree:
        """The parents, then every seed read or planted (seeds neither read nor planted say nothing)."""
        ped = Pedigree()
        idx = {pot: ped.add(self.parent_shows.get(pot)) for pot in self.parents}
        for o in self.offspring:
            if o.pot or o.shows is not None:
                i = ped.add(o.shows, mother=idx[o.mother], fathers=tuple(idx[f] for f in o.fathers if f in idx))
                if o.pot:
                    idx[o.pot] = i
        return ped

    def summary(self) -> str:
        """Parents and offspring counts, in the trait's words."""
        v = self.trait.value
        par = "/".join({True: v, False: f"not {v}", None: "?"}[self.parent_shows.get(p)] for p in self.parents)
        kids = [o.shows for o in self.offspring if o.pot or o.shows is not None]
        return (f"parents {par}; offspring {kids.count(True)} {v}, {kids.count(False)} not {v}, "
                f"{kids.count(None)} not seen yet")


# ---------------------------------------------------------------- the play
def play_genetics(p: TaskPlayer, spec: TaskSpec) -> None:
    """Breed the parent plants, read their offspring's trait, focus on the dominant or the recessive box."""
    trait = read_trait(spec.kind)
    species = re.sub(r"\s+plant$", "", spec.target.strip())
    seed_noun = f"{species} seed"

    def jar_seeds() -> list[SeenObject]:
        return [e for e in p.memory.entries() if referent(e.obj.name).endswith(seed_noun)
                and e.obj.parent and not _is_pot_name(e.obj.parent)]

    p.explore(("greenhouse",), until=lambda: bool(jar_seeds()))
    parents = jar_seeds()[:2]
    if len(parents) < 2:
        raise Stuck(f"fewer than two {seed_noun}s seen (a cross needs two parents)")
    room = next((x.room for x in p.memory.entries() if _is_pot(x) and x.room != "inventory"), parents[0].room)
    holder = p.memory.holder_of(parents[0])
    if parents[0].room != room and holder is not None:
        p.fetch(holder)  # the seed jar, to the pots
    p.goto(room)
    free = _free_pots(p, room)
    if len(free) < 2:
        _pot_with_new_soil(p)
        p.goto(room)
        free = _free_pots(p, room)
    cross = Cross(trait, species)
    for e in parents:
        if not free:
            raise Stuck("no free flower pot with soil for a parent seed")
        pot = free.pop(0)
        p.must("sw_move", referent(e.obj.name), pot, prefer=[f"in {e.obj.parent}"])
        cross.parents.append(pot)
        cross.parent_shows[pot] = phenotype(trait, species, seed=e.obj.name) if trait.shows_on == "seed" else None
    _keep_pollinators_in(p, room)
    _open_hive(p, room)
    prob = _experiment(p, cross, free, room)
    dominant = prob is None or prob >= 0.5
    box = spec.boxes.get("yes" if dominant else "no", "")
    if not box:
        raise Stuck("the task names no answer box")
    how = "undecided" if prob is None or abs(prob - 0.5) < 1e-9 else f"P(dominant)={prob:.2f}"
    p._run.answer = f"{trait.words}: {'dominant' if dominant else 'recessive'} ({how}; {cross.summary()})"
    p.record(DeviceChoice(role="answer box", object_id=box, method="experiment", reason=p._run.answer))
    boxes = p.named(box)
    if boxes:
        p.here(boxes[0])
    p.must("sw_focus_on", box, prefer=[p.memory.room or room])


def _is_pot_name(name: str) -> bool:
    return re.sub(r"\s+\d+$", "", name).endswith(" pot")


def _free_pots(p: TaskPlayer, room: str) -> list[str]:
    """Pots in ``room`` holding soil and nothing growing, by name."""
    pots = read_pots(str(p.ctx.obs.extra.get("look", ""))) if p.memory.room == room else {}
    return [name for name, v in pots.items() if not v.plant and "soil" in v.loose
            and all(x in ("soil", "water") for x in v.loose)]


_OPEN_DOOR = re.compile(r"A door to the (.+?) \(that is open\)")


def _keep_pollinators_in(p: TaskPlayer, room: str) -> None:
    """Close the room's doors, so the bees stay with the flowers (with the doors open they fly off, and an
    episode of train variation 233 of the unknown plant set no seed at all)."""
    p.goto(room)
    for other in _OPEN_DOOR.findall(str(p.ctx.obs.extra.get("look", ""))):
        p.skill("sw_close", f"door to {other}")


def _open_hive(p: TaskPlayer, room: str) -> None:
    """Let the bees out: they carry pollen between the flowers (no seed is set without them)."""
    hive = next((x for x in p.memory.entries() if referent(x.obj.name) == "bee hive"), None)
    if hive is not None and hive.obj.is_open is False:
        p.here(hive)
        p.skill("sw_open", "bee hive", prefer=[hive.room])
        p.goto(room)


def _moves_left(p: TaskPlayer) -> int | None:
    limit = getattr(p._run.env, "step_limit", None)
    if limit is None:
        return None
    return int(limit) - int(p.ctx.obs.extra.get("moves", 0) or 0)


def _experiment(p: TaskPlayer, cross: Cross, free: list[str], room: str) -> float | None:
    """Wait, read and plant offspring until P(dominant) is confident, nothing more will show, or time is up."""
    prob: float | None = 0.5
    for _ in range(MAX_WAITS + 1):
        cross.observe(read_pots(str(p.ctx.obs.extra.get("look", ""))))
        if cross.trait.shows_on != "seed":
            _plant_offspring(p, cross, free)
            cross.observe(read_pots(str(p.ctx.obs.extra.get("look", ""))))
        prob = dominance_probability(cross.pedigree())
        logger.debug("moves %s: %s; P(dominant)=%s", p.ctx.obs.extra.get("moves"), cross.summary(), prob)
        if prob is not None and (prob >= CONFIDENT or prob <= 1 - CONFIDENT):
            return prob
        grown = [o for o in cross.offspring if o.pot]
        read_all = cross.trait.shows_on != "seed" and not free and all(o.shows is not None for o in grown)
        left = _moves_left(p)
        if read_all or (left is not None and left < WAIT_MOVES + ANSWER_MOVES):
            return prob
        grow_wait(p)
        if p.memory.room != room:
            p.goto(room)
    return prob


def _plant_offspring(p: TaskPlayer, cross: Cross, free: list[str]) -> None:
    """Move the seeds set so far from their mothers into free pots, to grow and be read there."""
    plant = f"{cross.species} plant"
    for o in [o for o in cross.offspring if not o.pot]:
        if not free:
            return
        pot = free[0]
        # the option naming the mother's pot: "pea seed (in pea plant, in flower pot 3, in greenhouse)"
        if not p.skill("sw_move", referent(o.name), pot, prefer=[f"in {plant}", f"in {o.mother},"]).ok:
            return
        cross.planted(o, free.pop(0))


__all__ = ["CONFIDENT", "Cross", "Offspring", "PotView", "Trait", "phenotype", "play_genetics", "pot_phenotype",
           "read_pots", "read_trait"]
