"""The app's entry point in a checkout: ``streamlit run streamlit_app.py``.

The page itself is :mod:`advisor.app.page`, inside the package, so that ``advisor ui`` also works
from an installed wheel; this file only calls it.
"""

from __future__ import annotations

from advisor.app.page import main

main()
