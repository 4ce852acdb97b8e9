"""TypePriors: COAT common values first, then the derived AI2-THOR table, then a zero-confidence fallback."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from perception.priors import (
    THOR_TYPE_PRIORS,
    TYPICAL_MATERIAL,
    TypePriors,
    base_type,
)
from planner.errors import ConfigError, DataError, DataNotFoundError

GENERATOR = Path(__file__).resolve().parents[2] / "scripts" / "gen_type_priors.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_type_priors", GENERATOR)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_coat_prior_picks_typical_material_and_splits_confidence(priors):
    pot = priors.prior("Pot")
    assert pot["material"].value.value == "Metal"  # COAT lists Stone first; AI2-THOR pots are Metal
    assert pot["material"].confidence == pytest.approx(0.6 / 4)
    assert pot["mass"].value.value == "heavy" and pot["mass"].source == "prior"


def test_state_priors_are_never_hot_busy_or_broken(priors):
    for name in priors._common:
        p = priors.prior(name)
        assert p["condition"].value.value != "broken", name
        assert p["already_in_use"].value.value != "irreversible-using", name
    assert priors.prior("Floor")["already_in_use"].value.value == "free"


def test_spellings_and_derived_types(priors):
    assert base_type("AppleSliced") == "Apple" and base_type("EggCracked") == "Egg"
    assert base_type("Dumbbell") == "Dumbell"
    assert priors.prior("Dumbbell")["mass"].value.value == "heavy"
    assert priors.prior("AppleSliced")["material"].value.value == "Food"


def test_derived_table_and_fallback(priors):
    assert priors.coat_values("Faucet") is None and priors.knows("Faucet")
    faucet = priors.prior("Faucet")
    assert (faucet["mass"].value.value, faucet["material"].value.value) == ("medium", "Metal")
    assert "derived table" in faucet["material"].note
    alien = priors.prior("Spaceship")
    assert not priors.knows("Spaceship") and alien["mass"].confidence == 0.0


def test_priors_without_data():
    p = TypePriors(None)
    assert p.prior("Sink")["material"].value.value == "Stone"
    assert p.prior("Pot")["mass"].confidence == 0.0


def test_tables_are_consistent(priors):
    for name, mat in TYPICAL_MATERIAL.items():
        assert mat in priors.coat_values(name)["material"], name
    for name in THOR_TYPE_PRIORS:
        assert priors.coat_values(name) is None, f"{name} is a COAT object; remove it from the derived table"


def test_typical_material_is_reproducible(data_dir, floorplans_dir):
    common = json.loads((data_dir / "coat" / "task-1" / "common_var_responses.json").read_text())
    assert _generator().derive_typical_material(floorplans_dir, common) == TYPICAL_MATERIAL


def test_generator_script_checks_the_table(data_dir, floorplans_dir):
    assert _generator().main(["--data-dir", str(data_dir), "--check"]) == 0


def test_data_dir_file_gives_the_knowledge_base_priors(data_dir, priors):
    # The file reader (for code without a knowledge base) and the values the knowledge base passes in agree.
    assert TypePriors.from_data_dir(data_dir)._common == priors._common


def test_common_values_are_checked():
    with pytest.raises(ConfigError, match="valid values are"):
        TypePriors.from_common_values({"Pot": {"mass": ["enormous"]}})
    assert TypePriors.from_common_values({"Pot": {"mass": ["heavy"]}}).prior("Pot")["mass"].value.value == "heavy"


def test_data_dir_errors_name_the_problem(tmp_path):
    with pytest.raises(DataNotFoundError):
        TypePriors.from_data_dir(tmp_path / "nowhere")
    f = tmp_path / "coat" / "task-1" / "common_var_responses.json"
    f.parent.mkdir(parents=True)
    f.write_text("{")
    with pytest.raises(DataError, match="invalid JSON"):
        TypePriors.from_data_dir(tmp_path)
    f.write_text(json.dumps({"Pot": {"mass": ["enormous"]}}))
    with pytest.raises(DataError, match="valid values are"):
        TypePriors.from_data_dir(tmp_path)
