"""Reading a task, and ``plan_in_state``: the keyword-argument form of :meth:`planner.planning.Planner.plan`.

The read stage lives here: :func:`read_task` turns a task text into a :class:`~planner.schemas.TaskReading` (a COAT
task's library spec, the offline reader's spec, a model's structured parse, or "not understood"), :func:`roles_for`
finds the (utility, task) roles a text needs, and :func:`reader_for` gives the one task reader of a knowledge base
and reader setting. Deciding the roles, binding the targets and writing the steps are the
:class:`~planner.planning.Planner`'s stages; :func:`planner.api.plan` is the composition root that observes a scene
and plans in it.

Example:
    >>> from planner.scene_planner import plan_in_state        # doctest: +SKIP
    >>> plan_in_state("cut cake", state, llm=None).choices[0]  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Literal

from .arguments import check_plan_args
from .config import READER_METHODS, Interpret, PlannerConfig, ReaderMethod, current_setting, current_settings
from .errors import ConfigError
from .knowledge import KnowledgeBase, TaskMatch, resolve_task
from .knowledge.task_specs import build_spec, coat_spec
from .schemas import GoalCondition, Plan, Role, SceneState, TaskReading, TaskSpec
from .steps import Affordances
from .understanding import TaskReader
from .understanding.reader import exact_reading

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from .llm import LLMBackend

logger = logging.getLogger(__name__)

MIN_NEAREST_SCORE = 0.3
"""Lowest task-match score at which ``interpret="nearest"`` borrows a COAT task's annotations."""


def roles_for(task: str, kb: KnowledgeBase, *, utility: str | None = None) -> tuple[list[TaskMatch], bool]:
    """The (utility, task) roles a task needs, and whether they are exact COAT annotations.

    An annotated task may need several utilities ("serving cake": cutting and carrying). A free-text task
    gets its best-matching utility. ``utility`` forces the utility.
    """
    matches = resolve_task(task, kb)
    if utility is not None:
        utility = kb.resolve_utility(utility)
        same = [m for m in matches if m.utility == utility]
        if same and same[0].exact:
            return same[:1], True
        if not kb.is_annotated(utility, task):
            best = same[0] if same else None
            return [TaskMatch(query=task, utility=utility, task=best.task if best else None,
                              score=best.score if best else 0.0)], False
        return [TaskMatch(query=task, utility=utility, task=task, score=1.0, exact=True, method="exact")], True
    if not matches:
        raise ConfigError(f"empty task {task!r}: describe what the robot should do, e.g. 'cut cake'")
    if matches[0].exact:
        return [m for m in matches if m.exact], True
    return matches[:1], False


def read_task(task: str, kb: KnowledgeBase, *, utility: str | None = None,
              interpret: Interpret = "nearest", llm: LLMBackend | None = None) -> TaskReading:
    """How ``task`` is read: a COAT task's spec, the offline reader's spec, or "not understood".

    A COAT task gets its library spec (:func:`planner.knowledge.task_specs.coat_spec`); ``utility`` forces one
    role (the task's targets kept); other text goes to :class:`planner.understanding.TaskReader`, or with
    ``interpret="model"`` to ``llm``, its reply decoded under a JSON schema
    (:func:`planner.understanding.model_reader.read_with_model`).

    Raises:
        ConfigError: ``interpret="model"`` without a model.
    """
    if utility is not None:
        return _forced(task, kb, utility, interpret)
    exact = exact_reading(task, kb)
    if exact is not None:
        return exact  # a COAT task: no reader (nor its encoder) is needed
    reader = reader_for(kb)
    if interpret == "model":
        if llm is None:
            raise ConfigError("interpret='model' needs a generating model: pass llm= (e.g. 'local', "
                              "'served:<base_url>', 'openai:<model>')")
        from .understanding.model_reader import read_with_model  # the offline reader's gates first, then the model

        return read_with_model(task, llm, reader)
    return reader.read(task, borrow=interpret == "nearest")


def _forced(task: str, kb: KnowledgeBase, utility: str, interpret: Interpret) -> TaskReading:
    roles, exact = roles_for(task, kb, utility=utility)
    if exact:
        spec = coat_spec(roles[0].task or task, kb)
        keep = [r for r in spec.roles if r.utility == roles[0].utility]
        # the task's goals stand in for it as much with one role forced ("melting butter": the heat source reached)
        spec = build_spec(spec.task, keep, [t for t in spec.targets if t.name != "place"],
                          note=spec.note).model_copy(update={"proxy": spec.proxy})
        return TaskReading(text=task, understood=True, confidence=1.0, spec=spec, method="exact")
    notes: list[str] = [f"utility {utility!r} forced by the caller"]
    spec_roles = [Role(name=m.utility, utility=m.utility, task=_reading(task, m, interpret, notes)) for m in roles]
    base = reader_for(kb).read(task, borrow=False)
    targets = list(base.spec.targets) if base.spec is not None else []
    note = "" if targets else "not a COAT task and no target named: the chosen object is brought"
    # the caller chose the role, so the reading stands whatever the reader's own confidence in the text
    return TaskReading(text=task, understood=True, confidence=1.0, spec=build_spec(task, spec_roles, targets,
                       note=note), method="given", evidence=tuple(notes))


_READERS: dict[tuple[int, str, str | None], tuple[KnowledgeBase, TaskReader]] = {}


def reader_for(kb: KnowledgeBase, method: ReaderMethod | None = None) -> TaskReader:
    """The task reader of ``kb`` (made once per knowledge base, reader setting, encoder runtime and process: it
    embeds COAT's tasks and the worked examples once, with the encoder of that runtime).

    Args:
        kb: The knowledge base.
        method: ``auto`` or ``lexical`` (word overlap, no encoder); default: the current setting (``COAT_READER``,
            :func:`planner.config.current_setting`).

    Raises:
        ConfigError: an unknown ``method`` (the message names the valid ones), or a bad ``COAT_ENCODER_RUNTIME``
            when the reader embeds.
    """
    from .llm.embedding import default_encoder, embed_available, encoder_runtime

    method = current_setting("reader") if method is None else method
    if method not in READER_METHODS:
        raise ConfigError(f"reader must be one of {', '.join(map(repr, READER_METHODS))}, got {method!r}")
    runtime = encoder_runtime() if method == "auto" and embed_available() else None  # None: word overlap
    key = (id(kb), method, runtime)
    got = _READERS.get(key)
    if got is None or got[0] is not kb:
        got = (kb, TaskReader(kb, encoder=default_encoder(runtime) if runtime else None))
        _READERS[key] = got
    return got[1]


def plan_in_state(
    task: str | TaskSpec,
    state: SceneState,
    *,
    llm: LLMBackend | BaseChatModel | str | None = None,
    planner: Literal["two-stage", "single"] = "two-stage",
    strategy: Literal["hybrid", "llm", "knowledge", "learned"] = "hybrid",
    utility: str | None = None,
    interpret: Interpret = "nearest",
    kb: KnowledgeBase | None = None,
    data_dir: Any = None,
    affordances: Affordances | None = None,
    exclude: Mapping[str, str] | None = None,
    fixed: Mapping[str, str] | None = None,
    met: Collection[GoalCondition] = (),
    learned: Any = None,
) -> Plan:
    """Choose the object for every role of ``task`` among ``state``'s objects, bind its targets, write the steps.

    A :class:`~planner.planning.Planner` made for the call, with the current settings
    (:func:`planner.config.current_settings`), plans it: ``Planner(PlannerConfig(...), kb=kb).plan(task, state,
    ...)``. Build one Planner yourself to plan many tasks with the same configuration.

    Args:
        task: A task text (see :func:`planner.api.plan`) or a ready :class:`~planner.schemas.TaskSpec`.
        llm: As for :func:`planner.api.plan`: None, a model spec, a langchain chat model or a backend.
        affordances: What each object affords (:func:`planner.steps.affordances_of` of the observation); without
            it the steps open and close nothing themselves.
        exclude: Object id -> why it may not be chosen (found broken, taken, faulty while executing).
        fixed: Bindings to keep as they are (re-planning decides again only the roles not listed).
        met: Goal conditions that already hold (their steps are left out).
        learned: For ``strategy="learned"``: a trained model (:func:`planner.learned.load_learned`) or its
            directory (default: where ``coat train`` writes, in the user cache).

    Raises:
        TypeError: an argument of the wrong type (a task that is not a str or TaskSpec, a state that is not a
            SceneState, an llm without the LLMBackend members, ...).
        ConfigError: bad arguments (an empty or overlong task, unknown planner/strategy/utility, a strategy that
            needs a model without one).
    """
    from .planning import Planner, check_state_args

    check_plan_args(task, llm=llm, planner=planner, strategy=strategy, utility=utility, interpret=interpret,
                    kb=kb, data_dir=data_dir)
    check_state_args(state, affordances=affordances, exclude=exclude, fixed=fixed)
    config, model, trained = planner_config(llm=llm, planner=planner, strategy=strategy, interpret=interpret,
                                            data_dir=data_dir, learned=learned)
    return Planner(config, kb=kb, llm=model, learned=trained).plan(
        task, state, utility=utility, affordances=affordances, exclude=exclude, fixed=fixed, met=met)


def planner_config(*, llm: Any, planner: str, strategy: str, interpret: str, data_dir: Any,
                   learned: Any) -> tuple[PlannerConfig, Any, Any]:
    """The :class:`PlannerConfig` of :func:`plan_in_state`'s (or ``plan()``'s) arguments, with the current settings,
    and the objects that are no config values: a model object for ``llm``, a trained model for ``learned``."""
    spec = llm if isinstance(llm, str) else None
    path = learned if isinstance(learned, (str, os.PathLike)) and os.fspath(learned) else None
    config = PlannerConfig(planner=planner, strategy=strategy, interpret=interpret, llm=spec,
                           data_dir=data_dir, learned=path, settings=current_settings())
    return config, (None if spec is not None else llm), (None if path is not None else learned)


def _reading(task: str, role: TaskMatch, interpret: Interpret, notes: list[str]) -> str:
    """The task text the pipeline decides for a task COAT does not annotate, with a note saying why."""
    if interpret == "nearest" and role.task and role.score >= MIN_NEAREST_SCORE:
        notes.append(f"interpreted {task!r} as COAT task {role.task!r} ({role.utility})")
        return role.task
    notes.append(f"{task!r} is not a COAT task; utility {role.utility!r} inferred "
                 f"(nearest COAT task {role.task!r}, score {role.score:.2f})")
    return task


__all__ = [
    "MIN_NEAREST_SCORE", "Interpret", "plan_in_state", "planner_config", "read_task", "reader_for", "roles_for",
]
