"""Evidence -> TaskSpec: the roles read, with the types named, preferred and ruled out, each borrowing the
annotations of the nearest COAT task of its utility (``Role.task``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..knowledge.task_specs import build_spec, implied_roles
from ..schemas import Role, canonical_object_name, thor_object_name
from .evidence import _Evidence
from .frames import clauses

if TYPE_CHECKING:
    from ..knowledge import KnowledgeBase


class _SpecBuilder:
    """Builds the TaskSpec of the evidence; mixed into :class:`~planner.understanding.reader.TaskReader`."""

    kb: KnowledgeBase
    _verbs_of: dict[str, set[str]]

    def _spec(self, text: str, ev: _Evidence, tasks: list[str], task_sims: list[float], *, borrow: bool) -> Any:
        sims = dict(zip(tasks, task_sims, strict=True))
        known = set(self.kb.objects)  # "the tub" names Bathtub and BathtubBasin; COAT knows the basin
        roles = []
        for u, types in ev.roles.items():
            kept = [t for t in types if canonical_object_name(t) in known] or list(types)
            named = {canonical_object_name(t) for t in kept}  # "in the fridge, not the freezer": the fridge stays
            avoid = [t for t in ev.avoid.get(u, ()) if canonical_object_name(t) not in named]
            prefer = [t for t in dict.fromkeys(ev.prefer.get(u, ())) if t not in avoid]
            if kept:  # preferred types are among the fixed ones
                prefer = [t for t in prefer if canonical_object_name(t) in named]
            roles.append(Role(name=u, utility=u, types=tuple(thor_object_name(t) for t in kept),
                              prefer=tuple(prefer), avoid=tuple(thor_object_name(t) for t in avoid)))
        roles += [r for r in implied_roles(text, roles, ev.targets) if r.utility not in ev.roles]
        out = []
        for r in roles:
            near = ev.sources.get(r.utility) or self._nearest_task(r, sims, ev.verbs)
            if borrow and near is not None:
                ev.notes.append(f"{r.utility}: decided with COAT's annotations of {near!r}")
                r = r.model_copy(update={"task": near})
            elif not borrow:
                ev.notes.append(f"{r.utility}: decided on the request's own words (COAT does not annotate them)")
            out.append(r)
        roles = out
        note = "" if ev.targets else "no target named: the chosen objects are brought"
        return build_spec(text, roles, ev.targets, place=ev.place, placed=ev.placed, note=note, brought=ev.brought,
                          states=ev.set_states)

    def _nearest_task(self, role: Role, sims: dict[str, float], verbs: Iterable[str] = ()) -> str | None:
        """The COAT task of the role's utility nearest to the request, among those whose annotations keep a type
        the role prefers when there are such ("boil an egg" wants a pot: not "cooking & serving fried egg"), then
        among those whose ideal objects best match the preferred types (overlap over union: "dry my hands" wants
        towels, so "washing your face", not "washing dishes" with its soap; the first preferred weighs most), then
        among those named with one of the request's verbs ("dry the shower door": "drying washed dishes", not
        "cleaning showerhead")."""
        tasks = [t for t in self.kb.tasks(role.utility) if t in sims]
        order = list(dict.fromkeys(canonical_object_name(t) for t in role.prefer))
        wanted = set(order)
        tasks = [t for t in tasks if wanted & set(self.kb.context_objects(role.utility, t))] or tasks
        if wanted:
            fit = {t: self._ideal_overlap(role.utility, t, order) for t in tasks}
            best = max(fit.values(), default=0.0)
            tasks = [t for t in tasks if fit[t] == best] if best > 0 else tasks
        said = set(verbs) - {""}
        tasks = [t for t in tasks if said & self._task_verbs(t)] or tasks
        return max(tasks, key=sims.__getitem__, default=None)

    def _ideal_overlap(self, utility: str, task: str, wanted: Sequence[str]) -> float:
        """How well a COAT task's ideal objects match the wanted types, in preference order: a weighted overlap
        over union (the i-th wanted type weighs 1 / (i + 1)); 0 for an unannotated task."""
        if not self.kb.is_annotated(utility, task):
            return 0.0
        ideal = {c.object for c in self.kb.ideal(utility, task)}
        weight = {t: 1 / (i + 1) for i, t in reversed(list(enumerate(wanted)))}
        return sum(weight[t] for t in ideal & weight.keys()) / (sum(weight.values()) + len(ideal - weight.keys()))

    def _task_verbs(self, task: str) -> set[str]:
        """The verbs of a COAT task's name (base forms), computed once per task."""
        if task not in self._verbs_of:
            self._verbs_of[task] = {c.purpose or c.verb for c in clauses(task)} - {""}
        return self._verbs_of[task]
