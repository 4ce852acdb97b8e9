"""``python -m planner.cli``: the same as the ``coat`` command."""

from . import main

raise SystemExit(main())
