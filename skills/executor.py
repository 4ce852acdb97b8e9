"""Run a Plan's steps on an environment, skill by skill, and record what happened."""

from __future__ import annotations

import logging
from typing import Any

from planner.schemas import ExecutionTrace, Plan, SkillCall
from scenes.base import SceneEnv, SceneObs
from scenes.registry import check_env_scene

from .base import DEFAULT_MAX_SKILL_STEPS, SkillContext, SkillResult
from .registry import get_skill

logger = logging.getLogger(__name__)


def execute(
    plan: Plan,
    env: SceneEnv[Any, Any],
    obs: SceneObs | None = None,
    *,
    stop_on_failure: bool = True,
    max_skill_steps: int = DEFAULT_MAX_SKILL_STEPS,
) -> tuple[ExecutionTrace, SceneObs]:
    """Execute ``plan.steps`` on ``env``.

    Args:
        plan: The plan; an infeasible plan executes nothing and reports its reason.
        env: A reset environment that speaks AI2-THOR action names.
        obs: The latest observation (from ``reset`` or the last ``step``); when None, ``env.reset()`` is
            called first.
        stop_on_failure: Stop at the first failed skill (default) or try the remaining ones.
        max_skill_steps: Step budget per skill call.

    Returns:
        The trace and the final observation.

    Raises:
        UnknownIdError: a step names a skill that is not registered (a programming error in the plan).
        ConfigError: ``env`` was made for another scene than the plan's (``plan.env_id``).
    """
    check_env_scene(env, plan.env_id)
    skills = [(call, get_skill(call.skill)) for call in plan.steps]  # resolve all names before acting
    if obs is None:
        obs, _ = env.reset()
    if not plan.feasible:
        return ExecutionTrace(task=plan.task, ok=False, failure=plan.reason or "plan is infeasible"), obs
    results: list[SkillResult] = []
    failure = ""
    for call, skill in skills:
        ctx = SkillContext(env=env, obs=obs, max_steps=max_skill_steps)
        res = skill(call, ctx)
        obs = ctx.obs
        results.append(res)
        logger.info("skill %s(%s): ok=%s %s", call.skill, call.target, res.ok, res.reason)
        if not res.ok:
            if not failure:
                failure = f"{call.skill}({call.target}): {res.reason}"
                if res.fault is not None:
                    failure += f" [{res.fault}: {res.blame}]" if res.blame else f" [{res.fault}]"
            if stop_on_failure:
                break
        if ctx.terminated:
            failure = failure or "episode ended (terminated or truncated)"
            break
    return ExecutionTrace(task=plan.task, results=tuple(results), ok=not failure, failure=failure), obs


def run_skill(env: SceneEnv[Any, Any], obs: SceneObs, call: SkillCall, *,
              max_skill_steps: int = DEFAULT_MAX_SKILL_STEPS) -> tuple[SkillResult, SceneObs]:
    """Run one skill call: the closed loop's step.

    Args:
        env: A reset environment that speaks AI2-THOR action names.
        obs: The latest observation.
        call: The skill call.
        max_skill_steps: Step budget of the call.

    Returns:
        The result (``ok``, ``reason``, and on failure ``fault`` / ``blame``: the object whose state caused
        it; ``opened``: what the call left open) and the observation after it.

    Raises:
        UnknownIdError: the call names a skill that is not registered.
    """
    ctx = SkillContext(env=env, obs=obs, max_steps=max_skill_steps)
    res = get_skill(call.skill)(call, ctx)
    return res, ctx.obs
