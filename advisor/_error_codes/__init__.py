"""The error catalog (spaCy-style): every code defined once, with its message template and hint.

Why: codes written inline had collided (E230 meant four things, E210 eleven). Here each code has one
meaning; :func:`define` refuses a code twice, and ``tests/advisor/test_error_codes.py`` checks that
every code used in ``advisor/`` is defined here. A call site raises ``E211(option=..., requirement=...)``:
the template gives the message, the hint comes from the catalog unless the site passes a sharper one.
No call site writes a code (``tests/advisor/test_error_codes.py`` fails on ``code="E..."``).

A code has one meaning, but some are raised with several messages (which problem the data file has,
which problem the tracking URI has) that users and their scripts know: each such wording is a
:func:`variant` of its code, written here beside it, never at the call site.

Ranges: E1xx data files (``_data.py``), E2xx options and settings (``_options.py``), E5xx difficulty
metrics, E6xx verdict, E8xx gain (``_analysis.py``); the mechanism is ``_catalog.py``. Every entry is
re-exported here, so call sites import ``from advisor._error_codes import E211`` whatever file holds it.
The trainers keep their own "T..." catalog (:mod:`trainers._errors`, which defines the mechanism);
the prefix keeps the two apart, and ``tests/trainers/test_errors.py`` checks they share no code.
"""

from __future__ import annotations

from advisor._error_codes import _analysis, _data, _options
from advisor._error_codes._catalog import CATALOG, VARIANTS, ErrorCode, define, variant

__all__ = ["CATALOG", "VARIANTS", "ErrorCode", "define", "variant"]

# The entries by name (E211, E107_HEADERLESS, ...): one namespace for every call site.
for _part in (_data, _options, _analysis):
    globals().update({name: entry for name, entry in vars(_part).items() if isinstance(entry, ErrorCode)})
