"""advisor's catalog ("E...") beside the trainers' ("T..."): no shared code, each refuses the other's.

These need both packages, so they live on advisor's side: the trainers' tests import nothing of it.
"""

from __future__ import annotations

import re

import pytest

from advisor import _error_codes as advisor_codes
from trainers._errors import CATALOG


def test_the_two_catalogs_share_no_code_and_keep_to_their_prefix():
    assert CATALOG and advisor_codes.CATALOG
    assert not set(CATALOG) & set(advisor_codes.CATALOG)
    assert all(re.fullmatch(r"T\d{3}", code) for code in CATALOG)
    assert all(re.fullmatch(r"E\d{3}", code) for code in advisor_codes.CATALOG)


def test_a_trainers_code_is_refused_by_the_advisor_catalog():
    with pytest.raises(ValueError, match="not E followed by digits"):
        advisor_codes.define("T101", "a trainers code in the advisor catalog")
