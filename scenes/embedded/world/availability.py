"""COAT's availability: objects someone else is using, for a while or for good."""

from __future__ import annotations

from typing import Any

from .constants import INF
from .state import ActionFailed, UseClaim, WorldState


class Availability(WorldState):
    """The :class:`~scenes.embedded.world.state.UseClaim` of each object in use by someone else."""

    def set_in_use(
        self, oid: str, seconds: float | None, by: str = "someone else", switch_off: tuple[str, ...] = ()
    ) -> None:
        """Mark an object as used by someone else for ``seconds`` (None = for good, irreversible).

        ``switch_off``: toggleables that user switched on and switches off when the use ends.
        """
        until = INF if seconds is None else self.time + float(seconds)
        self.in_use[oid] = UseClaim(until=until, by=by, switch_off=tuple(switch_off))

    def in_use_report(self) -> dict[str, dict[str, Any]]:
        """``{objectId: {"state": "reversible-using"|"irreversible-using", "by", "until", "remaining"}}``."""
        out = {}
        for k, u in sorted(self.in_use.items()):
            out[k] = {
                "state": "irreversible-using" if u.irreversible else "reversible-using",
                "by": u.by,
                "until": None if u.irreversible else round(u.until, 6),
                "remaining": None if u.irreversible else round(max(u.until - self.time, 0.0), 6),
            }
        return out

    def _check_free(self, oid: str) -> None:
        u = self.in_use.get(oid)
        if u is None:
            return
        if u.irreversible:
            raise ActionFailed(f"{oid} is in use by {u.by} and will not become available (irreversible use)")
        raise ActionFailed(f"{oid} is in use by {u.by}")  # for how long is the user's to know
