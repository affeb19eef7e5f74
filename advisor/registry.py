"""One registry of named choices (embeddings, tasks, metrics) shared by the CLI, the app and configs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from advisor._error_codes import E201

__all__ = ["Registry", "embeddings", "metrics", "tasks"]

T = TypeVar("T")


@dataclass
class Registry(Generic[T]):
    """A name -> object mapping filled by a decorator; unknown names raise an error listing the choices."""

    kind: str
    _items: dict[str, T] = field(default_factory=dict)
    _meta: dict[str, dict[str, Any]] = field(default_factory=dict)

    def register(self, name: str, **meta: Any) -> Callable[[T], T]:
        def decorator(obj: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.kind} {name!r} registered twice")
            self._items[name] = obj
            self._meta[name] = meta
            return obj

        return decorator

    def unregister(self, name: str) -> None:
        """Remove ``name`` (a test that registers a toy entry cleans up with this)."""
        self._items.pop(name, None)
        self._meta.pop(name, None)

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise E201(kind=self.kind, name=name, choices=", ".join(self.names())) from None

    def meta(self, name: str) -> dict[str, Any]:
        self.get(name)
        return self._meta[name]

    def names(self, **where: Any) -> list[str]:
        """Registered names, optionally filtered on metadata (e.g. ``task="ner"``)."""
        return [n for n in self._items if all(self._meta[n].get(k) == v for k, v in where.items())]

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)


embeddings: Registry[Any] = Registry("embedding")
tasks: Registry[Any] = Registry("task")
metrics: Registry[Any] = Registry("metric")
