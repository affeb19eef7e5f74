"""Where the grid's cells train: ``local`` worker processes or a Ray cluster (``advisor[ray]``).

Both are ways to run one executor, :mod:`advisor.pipeline` (``run_cells``): the same worker state,
per-cell function, seeds and ordering, so ``--backend ray`` gives the scores of ``--backend local``.
This module names the backends and checks the options; Ray is imported only when it is used.

Without ``--ray-address`` a local Ray runtime is started (``--workers`` CPUs, default one per core)
and shut down at the end. With an address (``ray://head:10001`` or ``auto``) the nodes must have the
same ``advisor`` installed (``pip install "advisor[ray]"``).
"""

from __future__ import annotations

from advisor._error_codes import E201, E217, E218

__all__ = ["BACKENDS", "check_backend"]

BACKENDS = ("local", "ray")


def check_backend(backend: str, ray_address: str | None) -> None:
    """A known backend; ``ray`` needs the optional extra; an address makes sense only with ``ray``."""
    if backend not in BACKENDS:
        raise E201(kind="backend", name=backend, choices=", ".join(BACKENDS))
    if ray_address and backend != "ray":
        raise E217(option="--ray-address", requirement="--backend ray")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise E218(feature="--backend ray", package="Ray", extra="advisor[ray]") from None
