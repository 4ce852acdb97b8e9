"""Agents: composition roots that perceive a world, decide with the planner and act through skills.

``planner.agents.sciworld`` plays ScienceWorld's change-of-state tasks (``coat sciworld``). Importing this
package imports no agent; each agent package loads its simulator only when an episode starts.
"""

from __future__ import annotations

__all__: list[str] = []
