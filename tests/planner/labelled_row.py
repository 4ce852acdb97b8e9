"""One free-text request with a goal label, planned, carried out and judged as ``coat bench understanding`` does it
(the scene prepared as the label presumes; the independent checker judges the goal): for end-to-end reading tests."""

from __future__ import annotations

from typing import Any

from planner.api import execute_plan, plan
from planner.bench.understanding import RequestResult, label_preparation, run_request
from planner.knowledge import load_knowledge


def run_labelled(request: str, scene: str, targets: tuple[str, ...], goal: list[dict[str, Any]],
                 data_dir: Any) -> RequestResult:
    from planner.understanding.examples import Request

    req = Request(id="t1", request=request, scene=scene, kind="task", roles=(), targets=targets, acceptable={},
                  goal=goal)
    kw = {"llm": None, "strategy": "knowledge", "data_dir": data_dir}
    return run_request(req, plan, execute=lambda p: execute_plan(p, llm=None, strategy="knowledge",
                                                                  data_dir=data_dir),
                       prepare=label_preparation(load_knowledge(data_dir)), **kw)
