"""Errors the user can act on.

Every error raised for bad input or a bad option is an :class:`AdvisorError`: the CLI prints it as
``file:line: message`` plus a hint and exits with status 2, never with a traceback. The classes
are defined in :mod:`trainers._errors`, so the trainers raise the same types without importing
``advisor``.
"""

from __future__ import annotations

from trainers._errors import AdvisorError, ConfigError, InputError  # defined at the bottom layer

__all__ = ["AdvisorError", "ConfigError", "InputError"]
