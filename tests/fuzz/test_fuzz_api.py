"""Property-based tests of the API boundary and the command line (hypothesis; a few seconds in all).

Properties: whatever ``plan`` / ``plan_in_state`` are given, only the project's documented errors escape
(``planner.errors.*``, and ``TypeError`` from the boundary naming the argument); an arbitrary small SceneState
gives a Plan whose choices and bindings are objects of that scene; ``coat`` with arbitrary arguments always
exits 0-4 (or argparse's 2) and never prints a traceback or a raw terminal escape.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from planner.api import plan, plan_in_state
from planner.errors import PlannerError
from planner.schemas import ObjectRecord, PhysicalState, Plan, SceneState
from planner.schemas.core import Condition, InUse, Mass, Material, Temperature


def fast(n: int) -> settings:
    """A handful of examples, no deadline: the whole module stays within a few seconds of the default run."""
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

_NASTY = ["", " ", "\t\n", "\x00", "\x1b[2J", "\r\n", "\u202e", "\u200b", "[bold]x[/bold]", "\ud800", "😀" * 3,
          "cut apple", "boil water", "serving cake", "slice bread please", "x" * 2001]


class _WordEncoder:
    """Stage 1's ``embedding`` signal without torch: word overlap (MiniLM takes ~1 s a call on a small CPU)."""

    model_id = "fuzz:words"

    def similarities(self, query: str, texts: Sequence[str]) -> list[float]:
        q = set(query.lower().split())
        return [len(q & set(t.lower().split())) / (1 + len(q)) for t in texts]


@pytest.fixture(scope="module", autouse=True)
def _no_sentence_model():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("planner.llm.embedding.default_encoder", lambda: _WordEncoder())
        yield


@pytest.fixture(scope="module")
def kb(data_dir):
    from planner.knowledge import load_knowledge

    return load_knowledge(data_dir)


@pytest.fixture(scope="module")
def fake(kb):
    from planner.llm import make_llm

    return make_llm("fake")


def tasks(kb: Any) -> st.SearchStrategy[str]:
    """Task texts: COAT tasks, free text, unicode, control characters, surrogates, empty and huge ones."""
    coat = sorted({c.task for c in kb.combinations})
    return st.one_of(
        st.sampled_from(coat + _NASTY),
        st.text(max_size=40),
        st.text(st.characters(min_codepoint=0, max_codepoint=0x3F), max_size=20),
        st.text(st.characters(codec=None, categories=None), max_size=10),  # surrogates and unassigned too
        st.builds(lambda t, n: t * n, st.sampled_from(coat + ["x "]), st.integers(100, 400)),
        st.builds(lambda a, b: f"{a} {b}", st.sampled_from(coat), st.sampled_from(_NASTY)),
    )


def records(kb: Any) -> st.SearchStrategy[ObjectRecord]:
    """Objects of arbitrary COAT categories (and a few others) in arbitrary states."""
    def build(cat: str, i: int, mass: Mass, mat: Material, temp: Temperature, use: InUse, cond: Condition):
        if cond is Condition.BROKEN:
            use = InUse.IRREVERSIBLE  # COAT's rule: broken means unusable
        state = PhysicalState(mass=mass, material=mat, temperature=temp, already_in_use=use, condition=cond)
        return ObjectRecord(object_id=f"{cat}|{i}", category=cat, state=state)

    return st.builds(build, st.sampled_from(sorted(kb.objects) + ["Apple", "Cake", "Bread", "Unknown"]),
                     st.integers(0, 3), *(st.sampled_from(list(e)) for e in (Mass, Material, Temperature, InUse,
                                                                              Condition)))


def scenes(kb: Any) -> st.SearchStrategy[SceneState]:
    def build(objs: list[ObjectRecord]) -> SceneState:
        unique = {o.object_id: o for o in objs}
        return SceneState(scene_id="fuzz", objects=tuple(unique.values()))

    return st.builds(build, st.lists(records(kb), max_size=8))


ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=12), st.binary(max_size=8),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.tuples(st.integers()), st.just(object()),
)


def _documented(e: BaseException) -> bool:
    """A PlannerError, or the boundary's TypeError (its message names the argument)."""
    if isinstance(e, PlannerError):
        return True
    return type(e) is TypeError and " must be " in str(e)


@given(data=st.data())
@fast(60)
def test_any_task_text_gives_a_plan_or_a_planner_error(kb, fake, data) -> None:
    task = data.draw(tasks(kb))
    state = data.draw(scenes(kb))
    strategy = data.draw(st.sampled_from(["hybrid", "knowledge", "llm"]))
    llm = None if strategy == "knowledge" else fake
    try:
        p = plan_in_state(task, state, llm=llm, strategy=strategy, kb=kb,
                          interpret=data.draw(st.sampled_from(["exact", "nearest"])))
    except PlannerError:
        return
    assert isinstance(p, Plan)


@given(data=st.data())
@fast(40)
def test_an_arbitrary_scene_gives_a_plan_of_its_own_objects(kb, fake, data) -> None:
    state = data.draw(scenes(kb))
    task = data.draw(st.sampled_from(sorted({c.task for c in kb.combinations}) + ["slice bread please"]))
    p = plan_in_state(task, state, llm=fake, kb=kb)
    ids = {o.object_id for o in state.objects}
    assert {c.object_id for c in p.choices} <= ids
    assert set(p.bindings.values()) <= ids
    assert p.feasible or p.reason


_PARAMS = [n for n in inspect.signature(plan).parameters if n not in ("kb",)]


@given(data=st.data())
@fast(100)
def test_arbitrary_argument_types_raise_only_documented_errors(kb, fake, data) -> None:
    state = data.draw(scenes(kb))
    kwargs: dict[str, Any] = {"task": "cut apple", "scene": state, "llm": None, "kb": kb}
    for name in data.draw(st.lists(st.sampled_from(_PARAMS + ["kb"]), min_size=1, max_size=3, unique=True)):
        value = data.draw(ANYTHING)
        if name == "kb" and value is None:
            value = kb  # None means "load COAT's knowledge base": the same, only slower
        kwargs[name] = value
    task = kwargs.pop("task")
    try:
        p = plan(task, **kwargs)
    except Exception as e:  # noqa: BLE001 - the property is about which exceptions escape
        assert _documented(e), f"{type(e).__name__}: {e}"
        return
    assert isinstance(p, Plan)


@given(data=st.data())
@fast(100)
def test_plan_in_state_rejects_wrong_types_by_name(kb, data) -> None:
    task = data.draw(st.one_of(ANYTHING, tasks(kb)))
    state = data.draw(st.one_of(ANYTHING, scenes(kb)))
    try:
        plan_in_state(task, state, llm=None, kb=kb)
    except Exception as e:  # noqa: BLE001
        assert _documented(e), f"{type(e).__name__}: {e}"


# --- the command line

_VALUES = st.one_of(
    st.sampled_from(["knife-dirty", "no-knife", "random", "cutting", "carrying", "flying", "embedded", "0", "-1", "x",
                     "", "embedded/kitchn-v0", "embedded/FloorPlan1-v0", "/proc/none", "\x1b[2J", "\x00", "\ud800",
                     "[red]x[/red]"]),
    st.text(max_size=6),
)
_PLAN_OPTIONS = st.one_of(
    st.tuples(st.just("--strategy"), st.sampled_from(["hybrid", "knowledge", "llm"])),
    st.tuples(st.just("--interpret"), st.sampled_from(["exact", "nearest"])),
    st.tuples(st.just("--planner"), st.sampled_from(["two-stage", "single"])),
    st.tuples(st.sampled_from(["--scenario", "--utility", "--seed", "--scene", "--data-dir"]), _VALUES),
    st.tuples(st.sampled_from(["--json", "-h"])),
    st.tuples(_VALUES),  # a stray argument
)


def _flat(options: list[tuple[str, ...]]) -> list[str]:
    return [a for option in options for a in option]


def argvs() -> st.SearchStrategy[list[str]]:
    """Argument vectors for the quick subcommands (no download, no JVM, no benchmark), valid and not."""
    task = st.one_of(st.sampled_from(["cut apple", "boil water", "serving cake", "slice bread"] + _NASTY),
                     st.text(max_size=20))
    plan_argv = st.builds(lambda t, m, opts: ["plan", t, "--llm", m, *_flat(opts)], task,
                          st.sampled_from(["none", "fake"]), st.lists(_PLAN_OPTIONS, max_size=3))
    other = st.one_of(
        st.builds(lambda v: ["tasks", "--utility", v], _VALUES), st.just(["tasks"]),
        st.builds(lambda v: ["scenes", "list", "--family", v], _VALUES), st.just(["scenes", "list", "--expand"]),
        st.builds(lambda v: ["data", "where", "--data-dir", v], _VALUES), st.just(["datasets"]),
        st.lists(_VALUES, max_size=3),
    )
    return st.builds(_no_local_model, st.one_of(plan_argv, plan_argv, other))


def _no_local_model(argv: list[str]) -> list[str]:
    """``argv``, never asking for the embedded model (loading it takes seconds)."""
    return [("none" if a.startswith("local") else a) for a in argv]


@given(argv=argvs())
@fast(20)
# found by this property in a randomized run: '~user' with no such user made pathlib raise RuntimeError
@example(argv=["plan", "cut apple", "--llm", "none", "--data-dir", "~nosuchuser/x"])
@example(argv=["tasks", "--data-dir", "~nosuchuser"])
@example(argv=["data", "where", "--data-dir", "~nosuchuser/x"])
# found by this property: `coat data where` printed --data-dir raw (an escape, a lone surrogate)
@example(argv=["data", "where", "--data-dir", "\x1b[2J\ud800"])
def test_coat_never_prints_a_traceback(capsys, argv) -> None:
    from planner.cli import main

    try:
        code = main(argv)
    except SystemExit as e:  # argparse: usage errors (2) and --help (0)
        code = e.code
        assert code in (0, 2), argv
    out, err = capsys.readouterr()
    event(f"exit {code}")
    assert code in (0, 1, 2, 3, 4, 5), (argv, code, err)
    assert "Traceback" not in out + err and "internal error" not in err, (argv, err)
    assert "\x1b" not in err and "\x1b" not in out, argv
