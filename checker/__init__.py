"""An independent success checker for the household task benchmark: was the job done, by the world's record?

The checker replays an episode's logged actions in the scene (:func:`replay`) and judges the recorded states
(:func:`judge`). It shares no code with the planner's goal logic: it imports only ``scenes`` (the world, for
the replay) and the standard library. Each goal below is derived from the task's own words and from ALFRED's
definitions, as a person would judge "is the job done", strictly and on one object instance; the checker
searches every assignment of distinct objects (slices included) to the task's items and reports the one that
meets the goal, else the one that comes closest.

Conventions (``checker.track``): a slice or cracked egg inherits the history of the whole object it was cut from;
"in R" means in a receptacle of type R at the end, directly or inside another receptacle; "during the run"
means a change after reset (a rising edge), so what already held at reset earns nothing; the replayed
outcome of an action, not the logged one, is what happened.

ALFRED's seven types (Shridhar et al., CVPR 2020, goal conditions as in its task table; ``checker.alfred``):

- ``pick_and_place_simple``: X in R at the end, put there by the run;
- ``pick_two_obj_and_place``: two distinct X (distinct objectIds) in R;
- ``pick_and_place_with_movable_recep``: X in a movable M (put there by the run), the same M in R;
- ``pick_clean_then_place_in_recep``: the same X cleaned, then in R: a dirtyable X dirty at reset and clean
  at the end; any other X, ALFRED's cleaning event: it came to lie in a SinkBasin/BathtubBasin while a water
  source feeding that basin (its nearest, within 2 m) ran;
- ``pick_heat_then_place_in_recep``: the same X became Hot during the run (ALFRED books heating as an event:
  cooling back afterwards does not undo it), and is in R at the end;
- ``pick_cool_then_place_in_recep``: the same X became Cold during the run, or lay in a Fridge the run closed
  (ALFRED books that as cooled: an apple that starts cold in the fridge), and is in R at the end;
- ``look_at_obj_in_light``: X held at the end, and a DeskLamp/FloorLamp on at the end within 1 m of it that
  was off at reset or that the run switched on;
- sliced variants: X is a piece (``<id>|AppleSliced_i``; an Egg gives ``EggCracked``) cut during the run with
  a Knife/ButterKnife in hand ("slice first, with a knife"), and every condition holds on that same piece.

COAT's 75 tasks (``checker/coat_tasks.json``, from each task's words; the table is in docs/checker.md):
a goal per task in AI2-THOR terms, e.g. "cut apple" = an AppleSliced cut during the run with a knife;
"boil water" = a vessel holding water became Hot, the water run into it from a faucet; "store fruits and
vegetables" = produce put in a Fridge by the run; tasks whose effect AI2-THOR cannot show (no people, no
butter or soup, nothing hangs on walls, nothing is wet) are ``proxy``: success None, never a "brought to the
robot" success.

Problems void a success: a liquid conjured by ``FillObjectWithLiquid`` that is no pour (an emptied vessel's
liquid, :meth:`History.poured_from`) in a task about a liquid, a clean or
light goal already true at reset, a replay whose outcomes disagree with the log.

Example:
    >>> from checker import History, judge
    >>> table = {"objectId": "DiningTable|1", "objectType": "DiningTable"}
    >>> apple0 = {"objectId": "Apple|1", "objectType": "Apple", "parentReceptacles": ["CounterTop|1"]}
    >>> apple1 = {**apple0, "parentReceptacles": ["DiningTable|1"]}
    >>> held = {**apple0, "isPickedUp": True, "parentReceptacles": None}
    >>> h = History.of([[table, apple0], [table, held], [table, apple1]])
    >>> v = judge({"kind": "alfred", "name": "pick_and_place_simple", "obj": "Apple", "recep": "DiningTable"}, h)
    >>> v.success, v.category, v.assignment
    (True, 'placement', {'x': 'Apple|1'})
"""

from __future__ import annotations

from .history import History, Step, replay
from .verdict import Verdict, judge, met_at_reset, task_goal, unreachable_at_reset

__all__ = ["History", "Step", "Verdict", "judge", "met_at_reset", "replay", "task_goal", "unreachable_at_reset"]
