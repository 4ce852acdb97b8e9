"""The cost model reproduces COAT's pools and ideal sets from the rules, and prices unseen configurations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.errors import UnknownIdError
from planner.knowledge import KnowledgeBase, MaterialPreference, load_knowledge
from planner.knowledge.cost import CostModel, material_penalties, preferred_count
from planner.schemas import InUse, ObjectConfig, Penalty, PhysicalState

RAGHAV = ("eating", "giving raghav something hot to eat")
# The one configuration that COAT lists both as ideal and in the moderate pool (see planner.knowledge.cost).
OVERLAP = (RAGHAV, "Lettuce", ("light", "Food", "Hot", "free", "clean"))


@pytest.fixture(scope="module")
def kb(data_dir: Path) -> KnowledgeBase:
    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def cm(kb: KnowledgeBase) -> CostModel:
    return CostModel(kb)


def _cfg(obj: str, mass: str, material: str, temperature: str, in_use: str, condition: str) -> ObjectConfig:
    state = PhysicalState(mass=mass, material=material, temperature=temperature, already_in_use=in_use,
                          condition=condition)
    return ObjectConfig(object=obj, state=state)


def _key(combo: tuple[str, str], c: ObjectConfig) -> tuple[object, ...]:
    s = c.state
    return (combo, c.object, (s.mass.value, s.material.value, s.temperature.value, s.already_in_use.value,
                              s.condition.value))


def test_reproduces_every_pool_entry(kb: KnowledgeBase, cm: CostModel) -> None:
    checked, mismatches = 0, []
    for comb in kb.combinations:
        combo = (comb.utility, comb.task)
        for label in ("moderate", "bad"):
            for e in getattr(kb, label)(*combo):
                checked += 1
                got = cm.penalty(*combo, e.config)
                if (got.time_penalty, got.material_penalty, got.label) != (e.time_penalty, e.material_penalty, label):
                    mismatches.append((_key(combo, e.config), label, e.time_penalty, e.material_penalty, got))
    assert checked == 4813
    # Only the documented overlap differs: COAT lists it as ideal AND as moderate 60/0; ideal wins.
    assert [m[0] for m in mismatches] == [OVERLAP]
    assert mismatches[0][1:4] == ("moderate", 60, 0)
    assert mismatches[0][4] == Penalty(time_penalty=0, material_penalty=0, label="ideal")


def test_reproduces_every_ideal_configuration(kb: KnowledgeBase, cm: CostModel) -> None:
    n = 0
    for comb in kb.combinations:
        for cfg in kb.ideal(comb.utility, comb.task):
            n += 1
            assert cm.penalty(comb.utility, comb.task, cfg) == Penalty(time_penalty=0, material_penalty=0,
                                                                       label="ideal")
            assert cm.is_ideal(comb.utility, comb.task, cfg)
    assert n == 280


def test_label_rule_and_separation(kb: KnowledgeBase) -> None:
    moderate_totals, bad_totals = [], []
    for comb in kb.combinations:
        for e in kb.bad(comb.utility, comb.task):
            assert e.config.state.already_in_use is InUse.IRREVERSIBLE or e.material_penalty == 500
            bad_totals.append(e.total)
        for e in kb.moderate(comb.utility, comb.task):
            assert e.config.state.already_in_use is not InUse.IRREVERSIBLE and e.material_penalty != 500
            moderate_totals.append(e.total)
    assert max(moderate_totals) <= 430 < min(bad_totals)


def test_every_context_configuration_is_priced_consistently(kb: KnowledgeBase, cm: CostModel) -> None:
    """All 1,584 x context pairs: ideal iff annotated; label follows the 500 threshold; counts as documented."""
    pool = {
        _key((c.utility, c.task), e.config)
        for c in kb.combinations for lab in ("moderate", "bad") for e in getattr(kb, lab)(c.utility, c.task)
    }
    ideal = {_key((c.utility, c.task), cfg) for c in kb.combinations for cfg in kb.ideal(c.utility, c.task)}
    zero_not_ideal = neither = 0
    for comb in kb.combinations:
        combo = (comb.utility, comb.task)
        for obj in kb.context_objects(*combo):
            for cfg in kb.configurations_of(obj):
                p = cm.penalty(*combo, cfg)
                k = _key(combo, cfg)
                assert (p.label == "ideal") == (k in ideal)
                if p.label != "ideal":
                    assert (p.label == "bad") == (p.time_penalty >= 500 or p.material_penalty >= 500)
                    zero_not_ideal += p.total == 0
                neither += k not in ideal and k not in pool
    assert zero_not_ideal == 19  # documented in planner.knowledge.cost
    assert neither == 1219  # notes/coat.md: never used by Task-2


def test_temperature_exception_task(kb: KnowledgeBase, cm: CostModel) -> None:
    # Bread's ideal temperature is Hot: RoomTemp costs 30, Cold 60 (elsewhere, off-temperature costs 100).
    hot = cm.penalty(*RAGHAV, _cfg("Bread", "light", "Food", "Hot", "free", "dirty"))
    room = cm.penalty(*RAGHAV, _cfg("Bread", "light", "Food", "RoomTemp", "free", "dirty"))
    cold = cm.penalty(*RAGHAV, _cfg("Bread", "light", "Food", "Cold", "free", "dirty"))
    assert (hot.time_penalty, room.time_penalty, cold.time_penalty) == (50, 80, 110)
    cup_hot = cm.penalty("carrying", "serving wine", _cfg("Cup", "light", "Glass", "Hot", "free", "clean"))
    assert cup_hot == Penalty(time_penalty=100, material_penalty=0, label="moderate")


def test_computed_not_looked_up(tmp_path: Path, data_dir: Path, cm: CostModel) -> None:
    """Zeroing every penalty in pouch_suboptimal.json changes nothing the cost model says."""
    shutil.copytree(data_dir / "coat", tmp_path / "coat")
    f = tmp_path / "coat/task-2/pouch_suboptimal.json"
    f.chmod(0o644)
    d = json.loads(f.read_text())
    for tasks in d.values():
        for pools in tasks.values():
            for entries in pools.values():
                for e in entries:
                    e["time_penalty"] = e["material_penalty"] = 0
    f.write_text(json.dumps(d))
    other = CostModel(load_knowledge(tmp_path))
    combo = ("cutting", "apply butter")
    for e in cm.kb.moderate(*combo) + cm.kb.bad(*combo):
        assert other.penalty(*combo, e.config) == cm.penalty(*combo, e.config)
        assert cm.penalty(*combo, e.config).total > 0


# ---------------------------------------------------------------- material rule


@pytest.mark.parametrize(
    ("good", "bad", "expected"),
    [
        (["Metal"], [], {"Metal": 0}),  # single-material object
        (["Metal"], ["Plastic"], {"Metal": 200, "Plastic": 500}),  # lone good material: least preferred first
        (["Wood", "Metal"], [], {"Wood": 200, "Metal": 0}),
        (["Plastic", "Wood", "Metal"], [], {"Plastic": 200, "Wood": 20, "Metal": 0}),
        (["Plastic", "Metal", "Glass", "Ceramic"], [], {"Plastic": 200, "Metal": 200, "Glass": 0, "Ceramic": 0}),
        (["Organic", "Plastic", "Metal", "Glass", "Ceramic"], [],
         {"Organic": 200, "Plastic": 200, "Metal": 30, "Glass": 0, "Ceramic": 0}),
        (["Organic", "Glass", "Stone", "Wood", "Metal", "Ceramic", "Plastic"], [],
         {"Organic": 200, "Glass": 200, "Stone": 200, "Wood": 40, "Metal": 0, "Ceramic": 0, "Plastic": 0}),
    ],
)
def test_material_penalties(good: list[str], bad: list[str], expected: dict[str, int]) -> None:
    pref = MaterialPreference(good=tuple(good), bad=tuple(bad))
    assert {m.value: p for m, p in material_penalties(pref).items()} == expected


def test_preferred_count() -> None:
    assert [preferred_count(n) for n in range(1, 9)] == [1, 1, 1, 2, 2, 3, 3, 3]


# ---------------------------------------------------------------- configurations COAT never listed


def test_unlisted_material_and_unusual_mass(cm: CostModel) -> None:
    # COAT's knives are Metal only; a robot's plastic knife is usable but not preferred.
    plastic = cm.penalty("cutting", "cut apple", _cfg("Knife", "light", "Plastic", "RoomTemp", "free", "clean"))
    assert plastic == Penalty(time_penalty=0, material_penalty=200, label="moderate")
    assert CostModel(cm.kb, unlisted_material_penalty=500).penalty(
        "cutting", "cut apple", _cfg("Knife", "light", "Plastic", "RoomTemp", "free", "clean")).label == "bad"
    # Mass never enters the penalties: an unusually heavy ideal knife is still ideal.
    heavy = _cfg("Knife", "super-heavy", "Metal", "RoomTemp", "free", "clean")
    assert cm.kb.find_configuration(heavy) is None
    assert cm.is_ideal("cutting", "cut apple", heavy)
    wood_mug = _cfg("Mug", "light", "Wood", "Hot", "reversible-using", "dirty")
    p = cm.penalty("carrying", "serving wine", wood_mug)
    assert p == Penalty(time_penalty=80 + 50 + 100, material_penalty=200, label="moderate")
    assert "not in COAT's lists" in cm.explain("carrying", "serving wine", wood_mug)


def test_broken_and_irreversible_are_bad(cm: CostModel) -> None:
    broken = cm.penalty("cutting", "cut apple", _cfg("Knife", "light", "Metal", "RoomTemp", "irreversible-using",
                                                     "broken"))
    assert broken == Penalty(time_penalty=1000, material_penalty=0, label="bad")


# ---------------------------------------------------------------- ranking and coverage


def test_rank(cm: CostModel) -> None:
    combo = ("carrying", "serving wine")
    a = _cfg("Cup", "light", "Glass", "RoomTemp", "reversible-using", "clean")  # 80
    b = _cfg("Cup", "light", "Glass", "RoomTemp", "free", "dirty")  # 50
    c = _cfg("Cup", "light", "Glass", "RoomTemp", "irreversible-using", "clean")  # bad
    d = _cfg("Cup", "light", "Ceramic", "RoomTemp", "free", "clean")  # ideal
    e = _cfg("Mug", "light", "Glass", "RoomTemp", "free", "dirty")  # 50, ties with b
    ranked = cm.rank(*combo, [c, a, b, e, d])
    assert [x for x, _ in ranked] == [d, b, e, a, c]
    assert [p.label for _, p in ranked] == ["ideal", "moderate", "moderate", "moderate", "bad"]
    assert [x for x, _ in cm.rank(*combo, [e, b])] == [e, b]  # stable tie-break: input order
    assert cm.rank(*combo, []) == []


def test_names(cm: CostModel) -> None:
    cfg = _cfg("VacuumCleaner", "heavy", "Plastic", "RoomTemp", "free", "clean")
    assert cfg.object == "VaccumCleaner"
    assert cm.covers("Cleaning", "cleaning floor", "VacuumCleaner")
    assert cm.penalty("Cleaning", "cleaning  floor", cfg) == cm.penalty("cleaning", "cleaning floor", cfg)


def test_coverage_and_errors(cm: CostModel) -> None:
    knife = _cfg("Knife", "light", "Metal", "RoomTemp", "free", "clean")
    assert cm.covers("cutting", "cut apple", "Knife")
    assert not cm.covers("cutting", "cut apple", "Spoon")  # a utility object, not a context object
    assert not cm.covers("cutting", "boil water", "Knife")  # not an annotated combination
    assert not cm.covers("cutting", "cut apple", "Spaceship")
    assert not cm.covers("flying", "cut apple", "Knife")
    with pytest.raises(UnknownIdError, match=r"'Spoon' is not a context object.*covers\(\)"):
        cm.penalty("cutting", "cut apple", _cfg("Spoon", "light", "Metal", "RoomTemp", "free", "clean"))
    with pytest.raises(UnknownIdError, match="not an annotated combination"):
        cm.penalty("cutting", "boil water", knife)
    with pytest.raises(UnknownIdError, match="'cut appl'.*'cut apple'"):
        cm.penalty("cutting", "cut appl", knife)
    with pytest.raises(UnknownIdError, match="Valid utilities"):
        cm.rank("flying", "cut apple", [knife])


def test_load_classmethod(data_dir: Path, cm: CostModel) -> None:
    other = CostModel.load(data_dir)
    assert other.kb is cm.kb
    with pytest.raises(ValueError):
        CostModel(cm.kb, unlisted_material_penalty=-1)
