"""``coat data``: fetch, locate and verify the COAT / AI2-THOR reference data.

Usage:
    coat data download                                  # COAT + AI2-THOR floorplans into the user cache
    coat data download --only coat --dest ./data        # just the COAT annotations, into ./data
    coat data download --only traces                    # the recorded AI2-THOR episodes (needs Pillow)
    coat data download --mirror http://127.0.0.1:8000   # an offline mirror of raw.githubusercontent.com
    coat data where                                     # the directories searched, in order, and the one used
    coat data verify --data-dir /data/coat              # check every file against the recorded checksums

Requires: nothing beyond the core install (``--only traces`` needs Pillow: ``pip install 'coat-planner[traces]'``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import download as dl
from .. import paths as data_mod
from ..arguments import Range
from ..download.sources import FLOORPLANS
from ..errors import DataNotFoundError
from . import echo, number


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``coat data {download,where,verify}`` to the ``coat`` parser."""
    p = subparsers.add_parser(
        "data",
        help="download, locate and verify the COAT / AI2-THOR reference data",
        description="Download, locate and verify the COAT / AI2-THOR reference data.",
    )
    sub = p.add_subparsers(dest="data_command", metavar="ACTION")

    d = sub.add_parser(
        "download",
        help="fetch the pinned public files, checking each checksum",
        description=(
            "Fetch the pinned COAT and AI2-THOR files into a data directory. Every file is checked against the "
            "checksum recorded in the package and written atomically; files already present and correct are skipped."
        ),
    )
    d.add_argument("--dest", metavar="DIR", help="data root to fill (default: the user cache; see `coat data where`)")
    d.add_argument(
        "--mirror",
        metavar="URL",
        help=f"base URL replacing {dl.DEFAULT_BASE_URL} (same <owner>/<repo>/<commit>/<path> layout; "
        f"default: ${dl.MIRROR_ENV_VAR})",
    )
    d.add_argument(
        "--only",
        action="append",
        choices=dl.COMPONENTS,
        metavar="PART",
        help=f"fetch only this part (repeatable): {', '.join(dl.COMPONENTS)}; "
        f"default: {' + '.join(dl.DEFAULT_COMPONENTS)} (traces are opt-in)",
    )
    d.add_argument("--retries", type=number(Range(0, 20, integer=True)), default=3,
                   help="extra attempts per file on transient errors (default 3)")
    d.add_argument("--quiet", action="store_true", help="no progress bar")
    d.set_defaults(func=_download)

    w = sub.add_parser("where", help="show the data directories searched, in order, and the one used")
    w.add_argument("--data-dir", metavar="DIR", help="explicit data root (as the other commands' --data-dir)")
    w.set_defaults(func=_where)

    v = sub.add_parser("verify", help="check a data directory against the recorded checksums")
    v.add_argument("--data-dir", metavar="DIR", help="data root to check (default: the resolved one)")
    v.add_argument(
        "--only",
        action="append",
        choices=dl.COMPONENTS,
        metavar="PART",
        help="check only this part (repeatable); default: coat + ai2thor, plus traces when present",
    )
    v.set_defaults(func=_verify)

    def _help(args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=_help)


def _download(args: argparse.Namespace) -> int:
    components = tuple(args.only) if args.only else dl.DEFAULT_COMPONENTS
    report = dl.download(
        args.dest, components=components, mirror=args.mirror, retries=args.retries, progress=not args.quiet
    )
    echo(f"{len(report.fetched)} fetched, {len(report.skipped)} already present and verified, into {report.root}")
    if report.root != data_mod.cache_data_dir():
        echo(f"Use it with --data-dir {report.root} or {data_mod.ENV_VAR}={report.root}")
    return 0


def _status(root: Path, need: str) -> str:
    sub = root / need
    if not sub.is_dir():
        return f"no {need}/"
    if need == "coat":
        missing = [f for f in data_mod.COAT_FILES if not (sub / f).is_file()]
        return "complete" if not missing else f"incomplete ({len(missing)} of {len(data_mod.COAT_FILES)} files missing)"
    n_fp = len(list((sub / "floorplans").glob("FloorPlan*_physics.json")))
    has_types = (sub / "object_types.json").is_file()
    n_traces = len([t for t in (sub / "traces").glob("*") if t.is_dir()])
    types = "yes" if has_types else "no"
    return f"{n_fp}/{len(FLOORPLANS)} floorplans, object_types.json {types}, {n_traces} traces"


def _where(args: argparse.Namespace) -> int:
    echo("Data directory resolution order (the first with a complete coat/ is used):")
    cands = dict(data_mod.candidate_dirs(args.data_dir))
    for i, origin in enumerate(("--data-dir", data_mod.ENV_VAR, "user cache"), 1):
        root = cands.get(origin)
        if root is None:
            echo(f"  {i}. {origin:<14} ({'not given' if origin == '--data-dir' else 'not set'})")
            continue
        echo(f"  {i}. {origin:<14} {root}")
        if args.data_dir is not None and origin != "--data-dir":
            echo("       not tried: an explicit --data-dir is authoritative")
        else:
            echo(f"       coat/: {_status(root, 'coat')}; ai2thor/: {_status(root, 'ai2thor')}")
    try:
        root = data_mod.resolve_data_dir(args.data_dir)
    except DataNotFoundError as e:
        echo(f"Using: none\n{e}")
        return 1
    origin = next((o for o, r in cands.items() if r == root), "?")
    echo(f"Using: {root} ({origin})")
    return 0


def _verify(args: argparse.Namespace) -> int:
    root = data_mod.expand_user(args.data_dir, "--data-dir") if args.data_dir else data_mod.resolve_data_dir()
    if not root.is_dir():
        raise DataNotFoundError(f"{root} is not a directory. Fix: run `coat data download --dest {root}`.")
    report = dl.verify_dir(root, tuple(args.only) if args.only else None)
    for label, paths in (("MISSING", report.missing), ("MISMATCH", report.mismatched)):
        for p in paths:
            echo(f"{label:<9}{p}")
    if report.unchecked:
        hint = "pip install 'coat-planner[traces]'"
        echo(f"{len(report.unchecked)} PNG frame(s) not checked: Pillow is not installed ({hint})")
    echo(f"{root}: {len(report.ok)} ok, {len(report.missing)} missing, {len(report.mismatched)} mismatched")
    if not report.passed:
        echo(f"Fix: coat data download --dest {root}  (re-fetches missing or mismatched files)")
    return 0 if report.passed else 1


__all__ = ["register"]
