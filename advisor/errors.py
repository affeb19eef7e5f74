"""Errors the user can act on.

Every error raised for bad input or a bad option is an :class:`AdvisorError`: the CLI prints it as
``file:line: message`` plus a hint and exits with status 2, never with a traceback. The classes
are defined in :mod:`trainers._errors`, so the trainers raise the same types without importing
``advisor``.
"""

from __future__ import annotations

from trainers import (  # defined at the bottom layer (trainers._errors), light to import
    AdvisorError,
    ConfigError,
    ErrorCode,
    InputError,
    define_in,
)

__all__ = ["AdvisorError", "ConfigError", "ErrorCode", "InputError", "define_in"]
