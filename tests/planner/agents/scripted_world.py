"""What the scripted ScienceWorld houses of the offline tests share: the calls of ``scienceworld.ScienceWorldEnv``
the adapter makes that only report the episode (score, completion, moves); each house sets ``score``, ``done`` and
``moves`` in its own ``load`` and plays its own commands."""

from __future__ import annotations


class ScriptedWorld:
    score: int
    done: bool
    moves: int

    def close(self) -> None:
        pass

    def reset(self) -> str:  # server.reset() after load(): the world is already fresh
        return ""

    def getScore(self) -> float:
        return self.score / 100

    def getCompleted(self) -> bool:
        return self.done and self.score >= 100

    def getNumMoves(self) -> int:
        return self.moves
