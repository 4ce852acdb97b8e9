"""Skill registry: ``@register_skill`` on a Skill subclass makes it available by name."""

from __future__ import annotations

import difflib

from planner.errors import RegistrationError, UnknownIdError

from .base import Skill, SkillContext

_SKILLS: dict[str, Skill] = {}


def register_skill(cls: type[Skill]) -> type[Skill]:
    """Class decorator: register one instance of ``cls`` under ``cls.name``.

    Raises:
        RegistrationError: when ``cls`` is not a Skill subclass, has no name, or the name is taken.
    """
    if not (isinstance(cls, type) and issubclass(cls, Skill)):
        raise RegistrationError(f"{cls!r} is not a subclass of skills.Skill")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name or name != name.lower():
        raise RegistrationError(f"{cls.__name__}.name must be a non-empty lower-case verb, got {name!r}")
    if name in _SKILLS:
        raise RegistrationError(
            f"a skill named {name!r} is already registered ({type(_SKILLS[name]).__name__}); pick another name"
        )
    _SKILLS[name] = cls()
    return cls


def get_skill(name: str) -> Skill:
    """Return the registered skill called ``name``.

    Raises:
        UnknownIdError: listing the registered skills.
    """
    try:
        return _SKILLS[name]
    except KeyError:
        close = difflib.get_close_matches(name, list(_SKILLS), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise UnknownIdError(f"unknown skill {name!r}.{hint} Registered skills: {', '.join(sorted(_SKILLS))}") from None


def skill_names() -> list[str]:
    """Names of all registered skills, sorted."""
    return sorted(_SKILLS)


def unregister_skill(name: str) -> None:
    """Remove a skill (for tests and notebooks that re-run a registration)."""
    _SKILLS.pop(name, None)


SkillContext.resolve = get_skill  # one lookup for skills run inside skills (SkillContext.sub)
