"""The COAT knowledge base: counts, lookups, name handling and all-or-nothing validation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.errors import DataError, DataNotFoundError, UnknownIdError
from planner.knowledge import (
    Combination,
    CommonValues,
    KnowledgeBase,
    MaterialPreference,
    PoolEntry,
    load_knowledge,
)
from planner.schemas import Condition, InUse, Material, ObjectConfig, PhysicalState, Temperature


@pytest.fixture(scope="module")
def kb(data_dir: Path) -> KnowledgeBase:
    return load_knowledge(data_dir)


@pytest.fixture
def coat_copy(tmp_path: Path, data_dir: Path) -> Path:
    """A writable copy of the data root (only coat/), to damage."""
    shutil.copytree(data_dir / "coat", tmp_path / "coat")
    for p in (tmp_path / "coat").rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (tmp_path / "coat").chmod(0o755)
    return tmp_path


def _pairs(kb: KnowledgeBase) -> list[tuple[str, str]]:
    return [(c.utility, c.task) for c in kb.combinations]


# ---------------------------------------------------------------- counts and shapes


def test_counts(kb: KnowledgeBase) -> None:
    assert len(kb.utilities) == 22
    assert len(kb.combinations) == 96
    assert len(set(kb.combinations)) == 96
    assert len(kb.all_tasks) == 75
    assert len(kb.objects) == 100
    assert len(kb.configurations) == 1584
    assert sum(len(kb.ideal(u, t)) for u, t in _pairs(kb)) == 280
    assert sum(len(kb.moderate(u, t)) for u, t in _pairs(kb)) == 1914
    assert sum(len(kb.bad(u, t)) for u, t in _pairs(kb)) == 2899


def test_file_orders(kb: KnowledgeBase, data_dir: Path) -> None:
    coat = data_dir / "coat"
    assert list(kb.utilities) == json.loads((coat / "utilities.json").read_text())
    tasks = json.loads((coat / "tasks.json").read_text())
    assert [(c.utility, c.task) for c in kb.combinations] == [(u, t) for u in tasks for t in tasks[u]]
    assert kb.combinations[0] == Combination(utility="heating(source)", task="reheating coffee")
    assert [c.id for c in kb.configurations] == list(range(1, 1585))


def test_every_config_has_an_id_and_pools_reuse_configurations(kb: KnowledgeBase) -> None:
    for u, t in _pairs(kb):
        for cfg in kb.ideal(u, t):
            assert cfg.id is not None and kb.configuration(cfg.id) is cfg
        for e in kb.moderate(u, t) + kb.bad(u, t):
            assert isinstance(e, PoolEntry)
            assert e.config is kb.configuration(e.config.id)
            assert e.total == e.time_penalty + e.material_penalty


def test_context_objects_are_consistent(kb: KnowledgeBase) -> None:
    counts = []
    for u, t in _pairs(kb):
        ctx = kb.context_objects(u, t)
        counts.append(len(ctx))
        assert {c.object for c in kb.ideal(u, t)} == set(ctx)
        for o in ctx:
            assert isinstance(kb.material_preference(u, t, o), MaterialPreference)
    assert min(counts) == 1 and max(counts) == 9
    assert 2.5 < sum(counts) / len(counts) < 2.7


def test_desktop_is_context_for_time_but_not_a_time_object(kb: KnowledgeBase) -> None:
    # Kept as the files have it (documented in planner.knowledge).
    assert "Desktop" in kb.context_objects("time", "tell me the time")
    assert "Desktop" not in kb.utility_objects("time")
    assert "time" not in kb.utilities_of("Desktop")


def test_common_values_and_configurations(kb: KnowledgeBase) -> None:
    cv = kb.common_values("Knife")
    assert isinstance(cv, CommonValues)
    assert Material.METAL in cv.material
    configs = kb.configurations_of("Knife")
    assert configs and all(c.object == "Knife" for c in configs)
    for c in configs:
        for var in ("mass", "material", "temperature", "already_in_use", "condition"):
            assert getattr(c.state, var) in getattr(cv, var)
    # TargetCircle is in common_var_responses.json (101 keys) with empty lists and no utility: skipped.
    with pytest.raises(UnknownIdError):
        kb.common_values("TargetCircle")


def test_lookups(kb: KnowledgeBase) -> None:
    assert kb.tasks("cutting")[2] == "cut apple"
    assert kb.context_objects("cutting", "cut apple") == ("Knife",)
    assert "Knife" in kb.utility_objects("cutting")
    assert kb.utilities_of("Knife") == ("cutting", "mixing(tool)", "breaking")
    assert {c.utility for c in kb.combinations_for_task("reheat tomato soup")} == {"heating(source)", "carrying",
                                                                                  "mixing(tool)"}
    assert kb.is_annotated("cutting", "cut apple")
    assert not kb.is_annotated("cutting", "boil water")
    assert not kb.is_annotated("cutting", "cut cake")  # free text is not annotated, not an error
    pref = kb.material_preference("carrying", "water plants", "Bowl")
    assert pref is not None and pref.good[-1] == Material.PLASTIC
    assert kb.material_preference("carrying", "water plants", "Knife") is None
    ideal = kb.ideal("eating", "giving raghav something hot to eat")
    assert all(c.state.already_in_use is InUse.FREE and c.state.condition is Condition.CLEAN for c in ideal)


def test_find_configuration(kb: KnowledgeBase) -> None:
    first = kb.configurations[0]
    assert kb.find_configuration(ObjectConfig(object=first.object, state=first.state)) is first
    assert kb.find_configuration(first.object, first.state) is first
    odd = PhysicalState(mass="light", material="Wood", temperature="Hot", already_in_use="free", condition="clean")
    assert kb.find_configuration("Microwave", odd) is None


def test_templates(kb: KnowledgeBase) -> None:
    tp = kb.templates
    assert set(tp.utility_phrases) == set(kb.utilities)
    assert {"task_u", "task_0", "task_1", "task_2", "full"} <= set(tp.question_templates)
    assert {k: len(v) for k, v in tp.full_pipeline_variations.items()} == {2: 3, 3: 6, 4: 10, 5: 12}
    for n, mixes in tp.full_pipeline_variations.items():
        assert all(sum(m) == n - 1 for m in mixes)
    assert tp.sizes["task_u_questions_per_variation"] == 500


def test_memoised_per_directory(data_dir: Path) -> None:
    assert load_knowledge(data_dir) is load_knowledge(str(data_dir))
    assert load_knowledge() is load_knowledge(data_dir)  # conftest points COAT_DATA_DIR at the same root


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(("thor", "coat"), [("BaseballBat", "BaseBallBat"), ("BathtubBasin", "BathTubBasin"),
                                            ("Dumbbell", "Dumbell"), ("VacuumCleaner", "VaccumCleaner")])
def test_ai2thor_spellings(kb: KnowledgeBase, thor: str, coat: str) -> None:
    assert coat in kb.objects and thor not in kb.objects
    assert kb.resolve_object(thor) == coat
    assert kb.resolve_object(thor.lower()) == coat
    assert kb.utilities_of(thor) == kb.utilities_of(coat)
    assert kb.common_values(thor) == kb.common_values(coat)
    assert kb.configurations_of(thor) == kb.configurations_of(coat)


def test_ai2thor_spelling_in_combination_lookups(kb: KnowledgeBase) -> None:
    u, t = "cleaning", "cleaning floor"
    assert "VaccumCleaner" in kb.context_objects(u, t)
    pref = kb.material_preference(u, t, "VacuumCleaner")
    assert pref is not None and pref == kb.material_preference(u, t, "VaccumCleaner")
    assert kb.material_preference("physical_excercise", "get dianbo something to hit a ball", "BaseballBat")


def test_tolerant_utility_and_task_names(kb: KnowledgeBase) -> None:
    assert kb.tasks("CUTTING") == kb.tasks("cutting")
    # COAT's own string has two spaces; a single space finds it.
    assert kb.context_objects("storage", "packing books for house shifting") == kb.context_objects(
        "storage", "packing  books for house shifting")


@pytest.mark.parametrize(
    ("call", "bad", "hint"),
    [
        (lambda kb: kb.tasks("cuting"), "'cuting'", "'cutting'"),
        (lambda kb: kb.context_objects("cutting", "cut appl"), "'cut appl'", "'cut apple'"),
        (lambda kb: kb.common_values("Knif"), "'Knif'", "'Knife'"),
        (lambda kb: kb.utilities_of("Spaceship"), "'Spaceship'", "Valid objects:"),
        (lambda kb: kb.configuration(0), "0", "1 to 1584"),
    ],
)
def test_unknown_names(kb: KnowledgeBase, call, bad: str, hint: str) -> None:  # noqa: ANN001
    with pytest.raises(UnknownIdError) as exc:
        call(kb)
    msg = str(exc.value)
    assert bad in msg and hint in msg


def test_unknown_utility_lists_all_utilities(kb: KnowledgeBase) -> None:
    with pytest.raises(UnknownIdError) as exc:
        kb.utility_objects("flying")
    assert all(repr(u) in str(exc.value) for u in kb.utilities)


def test_pair_that_is_not_a_combination(kb: KnowledgeBase) -> None:
    with pytest.raises(UnknownIdError) as exc:
        kb.ideal("cutting", "boil water")
    msg = str(exc.value)
    assert "not an annotated combination" in msg and "heating(source)" in msg and "cut apple" in msg
    with pytest.raises(UnknownIdError):
        kb.material_preference("cutting", "boil water", "Knife")


# ---------------------------------------------------------------- damaged data


def _expect(root: Path, file: str, key: str) -> DataError:
    with pytest.raises(DataError) as exc:
        load_knowledge(root)
    err = exc.value
    assert err.path.endswith(file), err
    assert err.key == key, err
    assert f"{file}: at {key}: " in str(err)
    return err


def test_truncated_pool_file(coat_copy: Path) -> None:
    f = coat_copy / "coat/task-2/pouch_suboptimal.json"
    text = f.read_text()
    f.write_text(text[: len(text) // 2])
    with pytest.raises(DataError) as exc:
        load_knowledge(coat_copy)
    err = exc.value
    assert err.path.endswith("task-2/pouch_suboptimal.json")
    assert "truncated" in err.problem
    parts = err.key.split("/")  # utility/task/pool/index[/field]
    assert parts[0] == "carrying" and parts[2] in ("moderate", "bad") and parts[3].isdigit()


def test_bad_enum_value_names_key_path(coat_copy: Path) -> None:
    f = coat_copy / "coat/task-2/pouch_suboptimal.json"
    d = json.loads(f.read_text())
    d["cutting"]["apply butter"]["moderate"][3]["mass"] = "weightless"
    f.write_text(json.dumps(d))
    err = _expect(coat_copy, "task-2/pouch_suboptimal.json", "cutting/apply butter/moderate/3/mass")
    assert "'weightless'" in err.problem and "'super-heavy'" in err.problem


def test_bad_material_in_preferences(coat_copy: Path) -> None:
    f = coat_copy / "coat/task-2/material_preference.json"
    f.write_text(f.read_text().replace('"Ceramic"', '"Porcelain"', 1))
    err = _expect(coat_copy, "task-2/material_preference.json", "mat_gt/1/tasks/0/items/Cup/good/4")
    assert "Porcelain" in err.problem


def test_truncated_small_file(coat_copy: Path) -> None:
    f = coat_copy / "coat/tasks.json"
    f.write_text(f.read_text()[:200])
    with pytest.raises(DataError) as exc:
        load_knowledge(coat_copy)
    assert exc.value.path.endswith("tasks.json") and exc.value.key.startswith("heating(source)")


def test_wrong_type(coat_copy: Path) -> None:
    f = coat_copy / "coat/task-1/possible_configurations_v1.json"
    d = json.loads(f.read_text())
    d[10]["id"] = "eleven"
    f.write_text(json.dumps(d))
    _expect(coat_copy, "task-1/possible_configurations_v1.json", "10/id")


@pytest.mark.parametrize(
    ("file", "keys", "value"),
    [
        ("task-2/pouch_suboptimal.json", ["cutting", "cut apple", "moderate", 0, "time_penalty"], True),
        ("task-2/pouch_suboptimal.json", ["cutting", "cut apple", "bad", 1, "material_penalty"], "2"),
        ("task-1/possible_configurations_v1.json", [10, "id"], True),
        ("task-1/possible_configurations_v1.json", [10, "id"], 11.0),
        ("templates.json", ["sizes", "seed"], False),
        ("templates.json", ["full_pipeline_variations", "2", 0, 1], True),
    ],
)
def test_booleans_and_strings_are_not_counts(coat_copy: Path, file: str, keys: list, value: object) -> None:
    f = coat_copy / "coat" / file
    d = json.loads(f.read_text())
    node = d
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    f.write_text(json.dumps(d))
    err = _expect(coat_copy, file, "/".join(str(k) for k in keys))
    assert "valid integer" in err.problem and repr(value) in err.problem


@pytest.mark.parametrize(
    ("file", "keys"),
    [
        ("utilities.json", []),
        ("tasks.json", ["cutting"]),
        ("objects.json", ["cutting"]),
        ("oracle.json", ["cutting", "cut apple"]),
        ("task-1/pouch_config_oracle.json", ["cutting", "cut apple"]),
        ("task-2/pouch_suboptimal.json", ["cutting", "cut apple", "moderate"]),
        ("task-2/pouch_suboptimal.json", ["cutting", "cut apple", "bad"]),
        ("task-2/material_preference.json", ["mat_gt"]),
        ("task-2/material_preference.json", ["mat_gt", 0, "tasks"]),
        ("templates.json", ["full_pipeline_variations", "3"]),
    ],
)
def test_required_lists_may_not_be_empty(coat_copy: Path, file: str, keys: list) -> None:
    f = coat_copy / "coat" / file
    d = json.loads(f.read_text())
    if keys:
        node = d
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = []
    else:
        d = []
    f.write_text(json.dumps(d))
    if keys:
        err = _expect(coat_copy, file, "/".join(str(k) for k in keys))
    else:
        with pytest.raises(DataError) as exc:
            load_knowledge(coat_copy)
        err = exc.value
        assert err.path.endswith(file) and f"{file}: at <root>: " in str(err), err
    assert "at least 1 item" in err.problem


def test_pool_id_must_match_its_configuration(coat_copy: Path) -> None:
    f = coat_copy / "coat/task-2/pouch_suboptimal.json"
    d = json.loads(f.read_text())
    d["cutting"]["cut apple"]["bad"][0]["id"] = 1
    f.write_text(json.dumps(d))
    err = _expect(coat_copy, "task-2/pouch_suboptimal.json", "cutting/cut apple/bad/0/id")
    assert "Microwave" in err.problem


def test_combination_mismatch_between_files(coat_copy: Path) -> None:
    f = coat_copy / "coat/task-1/pouch_config_oracle.json"
    d = json.loads(f.read_text())
    d["cutting"]["cut pear"] = d["cutting"].pop("cut apple")
    f.write_text(json.dumps(d))
    err = _expect(coat_copy, "task-1/pouch_config_oracle.json", "cutting/cut pear")
    assert "tasks.json" in err.problem


def test_nothing_half_loaded(coat_copy: Path, data_dir: Path) -> None:
    f = coat_copy / "coat/templates.json"
    good = f.read_text()
    f.write_text(good.replace('"seed": 0', '"seed": "zero"'))
    _expect(coat_copy, "templates.json", "sizes/seed")
    _expect(coat_copy, "templates.json", "sizes/seed")  # errors are not cached
    f.write_text(good)
    kb2 = load_knowledge(coat_copy)
    assert kb2 is not load_knowledge(data_dir) and len(kb2.configurations) == 1584


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(DataNotFoundError):
        load_knowledge(tmp_path / "nowhere")


def test_enum_values_are_coat_strings(kb: KnowledgeBase) -> None:
    temps = {c.state.temperature for c in kb.configurations}
    assert temps == set(Temperature)


def test_optional_ideal_value_files(coat_copy: Path) -> None:
    three_path = coat_copy / "coat/task-2/3_var_ideal_config.json"
    three = json.loads(three_path.read_text())
    # Absent: loads without them.
    for name in ("task-1/choice_config_oracle.json", "task-2/3_var_ideal_config.json"):
        (coat_copy / "coat" / name).unlink()
    assert len(load_knowledge(coat_copy).configurations) == 1584
    # Present but disagreeing with the ideal configurations' temperatures: refused.
    three["Lettuce"]["temperature"] = ["Cold", "Hot"]  # pouch_config_oracle lists Hot first
    three_path.write_text(json.dumps(three))
    load_knowledge.cache_clear()
    err = _expect(coat_copy, "task-2/3_var_ideal_config.json", "Lettuce/temperature")
    assert "pouch_config_oracle.json" in err.problem
