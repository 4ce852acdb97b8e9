"""ScienceWorld (text simulator on a JVM) as a ``gymnasium.Env`` (ids ``coat/sciworld-boil-v0``...).

One JVM per env (py4j gateway started by ``scienceworld.ScienceWorldEnv``; ~1 s to start here), shut down by
``close()``. Steps go through the raw server calls (``server.step`` + score/completed/moves, ~10x faster
than ``scienceworld.ScienceWorldEnv.step``, which rebuilds the valid-action list every step); the valid
actions are listed only when ``valid_actions=True`` or :meth:`ScienceWorldEnv.valid_actions` is called.

Actions: a command string (the ``action_space`` is Gymnasium ``Text``) or ``Action(name="Text",
args={"command": "open door to kitchen"})`` sends a raw command; a few AI2-THOR verbs map onto ScienceWorld's,
with ``object_id`` the ScienceWorld object name (``Action(name="ToggleObjectOn", object_id="stove")`` ->
``"activate stove"``); see :data:`THOR_VERBS`.

Observations: as a dict, ``{"text", "inventory", "task_description"}`` (:func:`scenes.spaces.text_observation_space`);
the attributes as before (``obs.text``, ``obs.extra``). The spaces are declared without starting the JVM.

ScienceWorld reports every failure as text ("No known action matches that input.", "The stove appears
broken, and can't be activated or deactivated."); those replies are failed steps (``info["action_success"]``
False, ``info["error"]`` the reply). An ambiguous command ("Ambiguous request: Please enter the number...")
is a failed step too, with the options in ``info["choices"]``: answer with ``Action(name="Text",
args={"command": "0"})``, or pass ``args={"choice": 0}`` with the original action to pick at once. Any other
next command first cancels the pending question (ScienceWorld counts the cancel as one move).

Episode end: ``terminated`` when the task is completed or failed (score < 0, e.g. focusing on the wrong
object), ``truncated`` when ScienceWorld's move counter passes ``step_limit`` (its ``envStepLimit``). Reward is
the score change (score 0-100). ScienceWorld 1.2.3's physics is not deterministic (heat transfer), so the
same actions can end differently: act closed-loop.

Example:
    >>> from scenes.sciworld import ScienceWorldEnv
    >>> with ScienceWorldEnv("boil", variation=1) as env:           # doctest: +SKIP
    ...     obs, info = env.reset()
    ...     _, _, _, _, info = env.step(Action(name="Text", args={"command": "teleport to kitchen"}))
    ...     _, _, _, _, info = env.step(Action(name="ToggleObjectOn", object_id="stove"))
    ...     info["action_success"], info["error"]
    (False, "The stove appears broken, and can't be activated or deactivated.")
"""

from __future__ import annotations

import functools
import logging
import os
import random
import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from planner._optional import require
from planner.errors import ConfigError, DependencyNotInstalled, ResetNeeded, SimulatorError

from ..base import Action, SceneEnv, SceneObs
from ..spaces import clean_text, text_observation_space, text_space
from .objects import SWObject, flatten_tree
from .tasks import check_simplification, resolve_task, tasks

logger = logging.getLogger(__name__)

T = TypeVar("T")

THOR_VERBS: dict[str, str] = {
    "PickupObject": "pick up {obj}",
    "OpenObject": "open {obj}",
    "CloseObject": "close {obj}",
    "ToggleObjectOn": "activate {obj}",
    "ToggleObjectOff": "deactivate {obj}",
    "PutObject": "move {held} to {obj}",
    "DropHandObject": "drop {held}",
    "Pass": "wait1",
}
"""AI2-THOR action name -> ScienceWorld command. ``{obj}`` is ``object_id`` (a ScienceWorld object name);
``{held}`` is ``args["object"]``, else the last object picked up. ``PutObject``'s ``object_id`` is the
receptacle, as in AI2-THOR."""

_FAILURE_RES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        # ScienceWorld 1.2.3 answers failures with text only; these are its action replies (scienceworld.jar,
        # scienceworld/actions/*): unknown input, ambiguity, broken devices, impossible moves.
        r"^No known action matches that input",
        r"^Unknown action",
        r"^Ambiguous request",
        r"^ERROR",
        r"appears broken",
        r"\bcan't\b",
        r"\bcannot\b",
        r"\bis not (open|openable|closeable|moveable|movable|a container|edible|something)",
        r"\bisn't open\b",
        r"\bis already (open|closed|activated|deactivated|connected|flushing|in)",
        r"^It'?s not clear how",
        r"^I'm not sure",
        r"does not (appear|contain)",
        r"already appears to be in the inventory",
        r"^There is nothing in the",
        r"is empty, so there's nothing",
    )
)
_CHOICE_RE = re.compile(r"^\s*(\d+):\s*(.+?)\s*$")
_ENV_LOCK = threading.Lock()


def is_failure(reply: str) -> bool:
    """True when a ScienceWorld reply says the command did nothing (see module docstring)."""
    return any(r.search(reply) for r in _FAILURE_RES)


def parse_choices(reply: str) -> list[str]:
    """The numbered options of an "Ambiguous request" reply, in order."""
    if not reply.startswith("Ambiguous request"):
        return []
    return [m.group(2) for line in reply.splitlines()[1:] if (m := _CHOICE_RE.match(line))]


@functools.lru_cache(maxsize=1)
def java_version() -> int | None:
    """Major version of the ``java`` on PATH (8 for "1.8.0_x"), or None when there is no ``java``."""
    exe = shutil.which("java")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        logger.warning("could not run %s -version: %r", exe, e)
        return 0
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not m:
        return 0  # unknown format: let the JVM start decide
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def check_java() -> None:
    """Raise DependencyNotInstalled unless Java 8 or newer is on PATH (ScienceWorld's jar targets Java 8)."""
    v = java_version()
    if v is None:
        raise DependencyNotInstalled(
            "ScienceWorld runs on the JVM, but `java` is not on PATH. Install Java 8 or newer, e.g. "
            "`sudo apt-get install openjdk-17-jre-headless` (Debian/Ubuntu) or `brew install openjdk` (macOS)."
        )
    if 0 < v < 8:
        raise DependencyNotInstalled(f"ScienceWorld needs Java 8 or newer; `java -version` reports {v}.")


def _noop() -> None:
    return None


def _py4j_errors() -> tuple[type[BaseException], tuple[type[BaseException], ...]]:
    # (Java-side exception: the JVM is alive; errors that mean the gateway/JVM is gone)
    try:
        from py4j.protocol import Py4JError, Py4JJavaError
    except ImportError:  # only fakes without py4j reach this
        return (type("_NoJavaError", (Exception,), {}), (OSError, EOFError))
    return (Py4JJavaError, (Py4JError, OSError, EOFError))


class ScienceWorldEnv(SceneEnv[SceneObs, Action]):
    """ScienceWorld 1.2 through ``scienceworld.ScienceWorldEnv``.

    Args:
        task: Task name or id (``"boil"`` or ``"1-1"``; see :func:`scenes.sciworld.tasks`).
        variation: Default variation for ``reset()`` (``options={"variation": n}`` overrides it).
        simplification: ``"easy"`` (teleport, open doors, self-watering pots, no electrical actions except on
            electrical tasks), ``""`` for none, or a comma-separated list of flags.
        step_limit: ScienceWorld's ``envStepLimit``: the episode is truncated once its move counter passes it.
        jar_path: Another ``scienceworld.jar`` (default: the one in the wheel).
        valid_actions: List the valid actions in ``obs.extra["valid_actions"]`` every step (~0.1-0.15 s each).
        max_heap_mb: JVM heap cap (``-Xmx``) unless ``JAVA_TOOL_OPTIONS`` is already set; without a cap the
            heap grows to gigabytes over long runs. None leaves the JVM default.
        backend: An object with the ``scienceworld.ScienceWorldEnv`` API to use instead of starting a JVM
            (tests); ScienceWorldEnv takes ownership and closes it.
        render_mode: ``"ansi"`` (``render()`` returns the last observation text) or None.

    Raises:
        ConfigError: unknown task, bad simplification, missing jar, step_limit < 1.
        DependencyNotInstalled: scienceworld or Java is missing.
        SimulatorError: the JVM did not start.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        task: str = "boil",
        *,
        variation: int = 0,
        simplification: str = "easy",
        step_limit: int = 100,
        jar_path: str | os.PathLike[str] | None = None,
        valid_actions: bool = False,
        max_heap_mb: int | None = 512,
        backend: Any = None,
        render_mode: str | None = "ansi",
    ) -> None:
        self._set_render_mode(render_mode)
        self.observation_space = text_observation_space()
        self.action_space = text_space()
        self._env: Any = None
        self.task = resolve_task(task)
        self.simplification = check_simplification(self.task, simplification)
        if step_limit < 1:
            raise ConfigError(f"step_limit must be >= 1, got {step_limit}")
        if variation < 0:
            raise ConfigError(f"variation must be >= 0, got {variation}")
        self.variation = int(variation)
        self.step_limit = int(step_limit)
        self.list_valid_actions = valid_actions
        self._java_error, self._dead_errors = _py4j_errors()
        self._closed = False
        self._needs_reset = True
        self._score = 0
        self._pending: list[str] = []
        self._held: str | None = None
        self._last_text: str | None = None
        self._task_description = ""
        self._max_variations: dict[str, int] = {}
        if backend is not None:
            self._env = backend
        else:
            self._env = self._start(jar_path, max_heap_mb)
        self._env.envStepLimit = self.step_limit

    # ------------------------------------------------------------------ start-up
    def _start(self, jar_path: str | os.PathLike[str] | None, max_heap_mb: int | None) -> Any:
        sw = require("scienceworld", "sciworld")
        if jar_path is not None and not os.path.isfile(jar_path):
            raise ConfigError(f"jar_path {os.fspath(jar_path)!r} is not a file; omit it to use the jar in the wheel")
        check_java()
        with _ENV_LOCK:
            # py4j starts `java` with os.environ; cap the heap for this child only (notes: 3 GB after 10
            # episodes without a cap, 520 MB with -Xmx512m), then restore the caller's environment.
            set_opts = max_heap_mb is not None and not os.environ.get("JAVA_TOOL_OPTIONS")
            if set_opts:
                os.environ["JAVA_TOOL_OPTIONS"] = f"-Xmx{int(max_heap_mb)}m"
            try:
                return sw.ScienceWorldEnv(
                    "", serverPath=os.fspath(jar_path) if jar_path else None, envStepLimit=self.step_limit
                )
            except Exception as e:
                raise SimulatorError(f"ScienceWorld's JVM did not start: {type(e).__name__}: {e}") from e
            finally:
                if set_opts:
                    os.environ.pop("JAVA_TOOL_OPTIONS", None)

    # ------------------------------------------------------------------ task facts
    @staticmethod
    def tasks() -> list[str]:
        """The 30 ScienceWorld task names."""
        return tasks()

    def max_variations(self, task: str | None = None) -> int:
        """Number of variations of ``task`` (default: this env's task)."""
        name = resolve_task(task or self.task)
        if name not in self._max_variations:
            self._max_variations[name] = int(
                self._call(lambda: self._env.get_max_variations(name), "get_max_variations")
            )
        return self._max_variations[name]

    def variations(self, split: str) -> list[int]:
        """The variations of this env's task in ``split`` ("train", "dev" or "test").

        ScienceWorld answers for the task loaded last, so this loads the task if nothing is loaded yet.
        """
        getters = {"train": "get_variations_train", "dev": "get_variations_dev", "test": "get_variations_test"}
        if split not in getters:
            raise ConfigError(f"unknown split {split!r}; valid: train, dev, test")
        if self._needs_reset:
            self._load(self.variation)
        return [int(v) for v in self._call(getattr(self._env, getters[split]), "variations")]

    # ------------------------------------------------------------------ SceneEnv API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[SceneObs, dict[str, Any]]:
        """Load the task variation and look around.

        Args:
            seed: With ``options={"split": ...}``, picks the variation from that split
                (``random.Random(seed)``); otherwise unused: the variation fixes the world.
            options: ``{"variation": n}`` or ``{"split": "train" | "dev" | "test"}``.

        Returns:
            ``(obs, info)``: ``obs.text`` is the room description; ``obs.extra`` has ``task_description``,
            ``inventory``, ``look``, ``observation`` (the reply), ``command`` (what was sent), ``score``,
            ``moves`` (and ``valid_actions`` when enabled).

        Raises:
            ConfigError: unknown option, split or a variation out of range.
            SimulatorError: the JVM died (the env has been closed).
        """
        super().reset(seed=seed)
        self._check_open()
        options = dict(options or {})
        unknown = set(options) - {"variation", "split"}
        if unknown:
            raise ConfigError(f"unknown reset option(s) {sorted(unknown)}; valid: 'variation', 'split'")
        if "variation" in options:
            variation = int(options["variation"])
        elif "split" in options:
            pool = self.variations(str(options["split"]))
            variation = random.Random(seed).choice(pool)
        else:
            variation = self.variation
        n = self.max_variations()
        if not 0 <= variation < n:
            raise ConfigError(f"variation {variation} out of range for task {self.task!r}: valid 0..{n - 1}")
        self._load(variation)
        # Fixed for the episode: ask once here rather than on every step (one JVM round trip less per step).
        self._task_description = str(self._call(self._env.taskdescription, "task"))
        reply = self._call(lambda: self._env.server.step("look around"), "look around")
        if reply.startswith("ERROR"):
            raise ConfigError(f"ScienceWorld could not load {self.task!r} variation {variation}: {reply}")
        self._needs_reset = False
        self._score = 0
        self._pending, self._held = [], None
        obs = self._observe(reply, "look around")
        info = {
            "task": self.task,
            "variation": variation,
            "simplification": self.simplification,
            "score": obs.extra["score"],
            "moves": obs.extra["moves"],
            "action_success": True,
            "error": "",
        }
        return obs, info

    def step(self, action: Action | str) -> tuple[SceneObs, float, bool, bool, dict[str, Any]]:
        """Send one command: a string, an :class:`Action` (``Text`` or a verb of :data:`THOR_VERBS`) or
        ``controller.step`` kwargs as a dict.

        Returns:
            ``(obs, reward, terminated, truncated, info)``; ``info`` has ``action_success``, ``error``,
            ``command`` (what was sent), ``score``, ``moves``, ``success`` (task completed) and, after an
            ambiguous command, ``choices``.

        Raises:
            ResetNeeded: called before ``reset()``.
            SimulatorError: the JVM died or the env is closed (it has been closed).
            ConfigError: ``action`` is not a str, an Action or a dict with ``"action"``.
        """
        self._check_open()
        if self._needs_reset:
            raise ResetNeeded("ScienceWorldEnv.step() called before reset(); call reset() first")
        action = Action(name="Text", args={"command": action}) if isinstance(action, str) else Action.coerce(action)
        command, problem = self._command(action)
        if problem:
            obs = self._observe(problem, "")
            info = self._info(command or "", problem, False, obs)
            return obs, 0.0, False, False, info

        if self._pending and not command.strip().isdigit():
            # ScienceWorld would read this command as the answer to its pending question; cancel it first.
            self._call(lambda: self._env.server.step(""), "cancel")
            self._pending = []
        reply = self._send(command)
        choice = action.args.get("choice")
        if reply.startswith("Ambiguous request") and choice is not None:
            command = str(int(choice))
            reply = self._send(command)
        self._pending = parse_choices(reply)
        ok = not is_failure(reply)
        if ok and action.name == "PickupObject":
            self._held = action.object_id
        elif ok and action.name in ("PutObject", "DropHandObject"):
            self._held = None

        obs = self._observe(reply, command)
        score, moves = obs.extra["score"], obs.extra["moves"]
        completed = bool(self._call(self._env.server.getCompleted, "getCompleted"))
        reward = float(score - self._score)
        self._score = score
        terminated = completed or score < 0
        truncated = not terminated and moves > self.step_limit
        info = self._info(command, "" if ok else reply, ok, obs)
        info["success"] = completed and score >= 0
        if self._pending:
            info["choices"] = list(self._pending)
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        """The last observation text (None with ``render_mode=None`` or before reset)."""
        return None if self.render_mode is None else self._last_text

    def close(self) -> None:
        """Shut the JVM down. Safe to call more than once."""
        env, self._env = getattr(self, "_env", None), None
        self._closed = True
        if env is None:
            return
        gateway = getattr(env, "_gateway", None)
        proc = getattr(gateway, "java_process", None)
        try:
            if proc is not None and proc.poll() is not None and gateway is not None:
                # The JVM is gone: asking it to shut down would only log connection errors; just close our side.
                gateway.close(keep_callback_server=False)
                client = getattr(gateway, "_gateway_client", None)
                if client is not None:
                    client.is_connected = False  # py4j then skips its per-object finalizer calls to the dead JVM
            else:
                env.close()
        except Exception as e:
            logger.debug("ignoring error while closing ScienceWorld: %r", e)
        try:
            # scienceworld.ScienceWorldEnv.__del__ calls close() again; after shutdown that can only fail noisily.
            env.close = _noop
        except AttributeError:
            pass
        if proc is not None:
            try:
                proc.wait(timeout=10)  # reap it: close() alone leaves a <defunct> java for a while
            except Exception:
                logger.warning("ScienceWorld JVM (pid %s) did not exit in 10 s; killing it", proc.pid)
                proc.kill()

    # ------------------------------------------------------------------ ground truth
    def object_tree(self) -> dict[str, Any]:
        """ScienceWorld's full world state (``getObjectTree()``): ground truth for scoring perception."""
        self._check_loaded()
        return self._call(self._env.getObjectTree, "getObjectTree")

    def objects(self) -> list[SWObject]:
        """The object tree as flat records (material, temperature, broken, on, open...)."""
        return flatten_tree(self.object_tree())

    def broken_devices(self) -> tuple[str, ...]:
        """Devices broken in the loaded world, as ``"room:device"`` (read from the object tree)."""
        return tuple(sorted(o.location for o in self.objects() if o.is_broken))

    def valid_actions(self) -> list[str]:
        """The commands ScienceWorld accepts now (~0.1-0.15 s: it enumerates every object combination)."""
        self._check_loaded()
        return list(self._call(self._env.get_valid_action_object_combinations, "valid actions"))

    # ------------------------------------------------------------------ internals
    def _check_open(self) -> None:
        if self._closed or self._env is None:
            raise SimulatorError("this ScienceWorldEnv is closed; create a new one (scenes.make('sciworld/...'))")

    def _check_loaded(self) -> None:
        self._check_open()
        if self._needs_reset:
            raise ResetNeeded("no ScienceWorld task loaded yet; call reset() first")

    def _load(self, variation: int) -> None:
        try:
            self._call(lambda: self._env.load(self.task, variation, self.simplification), "load")
        except ValueError as e:  # scienceworld's own argument checks
            raise ConfigError(f"ScienceWorld rejected task {self.task!r} variation {variation}: {e}") from e
        except self._java_error as e:
            raise ConfigError(
                f"ScienceWorld failed to load {self.task!r} variation {variation} with simplification "
                f"{self.simplification!r}: {e}"
            ) from e
        err = self._call(self._env.server.reset, "reset")
        if isinstance(err, str) and err.startswith("ERROR"):
            raise ConfigError(f"ScienceWorld could not load {self.task!r} variation {variation}: {err}")
        self._needs_reset = True

    def _call(self, fn: Callable[[], T], what: str) -> T:
        try:
            return fn()
        except self._java_error as e:
            if self._jvm_alive() is False:
                raise self._died(what) from e
            raise
        except self._dead_errors as e:
            raise self._died(what) from e

    def _died(self, what: str) -> SimulatorError:
        self.close()
        return SimulatorError(
            f"ScienceWorld's JVM stopped responding during {what!r} (task {self.task!r}); the environment has "
            "been closed. Create a new one to continue."
        )

    def _send(self, command: str) -> str:
        try:
            return str(self._call(lambda: self._env.server.step(command), command))
        except self._java_error as e:  # a Scala exception inside one command: the JVM lives on
            logger.warning("ScienceWorld raised a Java exception for %r: %s", command, e)
            return f"ERROR: ScienceWorld raised a Java exception for {command!r}: {str(e).splitlines()[0]}"

    def _jvm_alive(self) -> bool | None:
        proc = getattr(getattr(self._env, "_gateway", None), "java_process", None)
        return None if proc is None else proc.poll() is None

    def _command(self, action: Action) -> tuple[str, str]:
        """(command, problem): problem is non-empty when the action cannot be expressed in ScienceWorld."""
        if action.name == "Text":
            cmd = action.args.get("command")
            if not isinstance(cmd, str):
                return "", "Text action needs args={'command': '<ScienceWorld command>'}"
            return cmd, ""
        template = THOR_VERBS.get(action.name)
        if template is None:
            valid = ", ".join(["Text", *THOR_VERBS])
            return "", f"action {action.name!r} has no ScienceWorld equivalent; valid: {valid}"
        obj = action.object_id
        if "{obj}" in template and not obj:
            return "", f"{action.name} needs object_id (a ScienceWorld object name such as 'metal pot')"
        held = action.args.get("object") or self._held
        if "{held}" in template and not held:
            return "", f"{action.name} needs args={{'object': ...}} or a previous successful PickupObject"
        return template.format(obj=obj, held=held), ""

    def _observe(self, reply: str, command: str) -> SceneObs:
        env = self._env
        look = self._call(env.look, "look")
        extra: dict[str, Any] = {
            "observation": reply,
            # the command behind the reply: perception needs it to know what a thermometer reading refers to
            "command": command,
            "look": look,
            "inventory": self._call(env.inventory, "inventory"),
            "task_description": self._task_description,
            "score": int(round(100 * float(self._call(env.server.getScore, "getScore")))),
            "moves": int(self._call(env.server.getNumMoves, "getNumMoves")),
        }
        if self.list_valid_actions:
            extra["valid_actions"] = list(self._call(env.get_valid_action_object_combinations, "valid actions"))
        text = reply if command.strip() in ("look around", "look") else f"{reply}\n\n{look}"
        self._last_text = text
        task = self._task_description

        def view() -> dict[str, str]:  # built when first read (see SceneObs)
            return {"text": clean_text(text), "inventory": clean_text(str(extra["inventory"])),
                    "task_description": clean_text(task)}

        return SceneObs(text=text, extra=extra, view=view)

    def _info(self, command: str, error: str, ok: bool, obs: SceneObs) -> dict[str, Any]:
        return {
            "action_success": ok,
            "error": error,
            "command": command,
            "score": obs.extra["score"],
            "moves": obs.extra["moves"],
            "success": False,
        }


__all__ = ["THOR_VERBS", "ScienceWorldEnv", "check_java", "is_failure", "java_version", "parse_choices"]
