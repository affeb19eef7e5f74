"""The run form's widgets, generated from the settings schema (:mod:`advisor.settings`).

Why: the CLI options and the app's ``advisor run`` argv already come from the schema; the form wrote
its labels, keys, defaults and choices out again. Here each widget takes them from the setting it
fills: the key is the setting's name, the label its :data:`~advisor.settings.FORM_LABELS`
entry, the choices :func:`~advisor.validate.choices_of` and the default the
:class:`~advisor.settings.RunSettings` default. The page only decides the layout (columns, expanders).
Every function takes the Streamlit container to draw in (``st``, a column, an expander).
"""

from __future__ import annotations

from typing import Any

from advisor.settings import Setting, default_of, setting
from advisor.validate import choices_of
from advisor.vocabulary import parse_list

__all__ = ["amount", "choice", "count", "multichoice", "number_list", "or_default", "text"]

_CAST: dict[str, type] = {"ints": int, "floats": float}


def _shown(name: str) -> Setting:
    """The setting ``name``, which must be on the form (a label in ``FORM_LABELS``)."""
    item = setting(name)
    if not item.label:
        raise KeyError(f"setting {name!r} has no form label in advisor.settings.FORM_LABELS")
    return item


def choice(
    container: Any, name: str, *, default: str | None = None, radio: bool = False, **options: Any
) -> str:
    """One of the registry's choices, preselecting ``default`` (else the settings default); the widget's
    key is the setting's name unless ``key`` says otherwise (the same setting on another page)."""
    item = _shown(name)
    choices = choices_of(name)
    if choices is None:
        raise KeyError(f"setting {name!r} has no registry of choices")
    chosen = default_of(name) if default is None else default
    widget = container.radio if radio else container.selectbox
    index = choices.index(chosen) if chosen in choices else 0
    return widget(item.label, choices, index=index, **{"key": name, **options})


def multichoice(container: Any, name: str) -> list[str]:
    """Several of the registry's choices, the settings default preselected."""
    item = _shown(name)
    return container.multiselect(item.label, choices_of(name), default=list(default_of(name)), key=name)


def text(container: Any, name: str, *, tooltip: bool = False, **options: Any) -> str:
    """Free text, prefilled with the settings default (blank for None); ``tooltip`` shows the schema's help."""
    item = _shown(name)
    default = default_of(name)
    value = "" if default is None else str(default)
    if tooltip:
        options["help"] = item.help
    return container.text_input(item.label, value, key=name, **options)


def or_default(name: str, value: str) -> Any:
    """A blank text field means the setting's default (None: the packaged model, the default store …)."""
    return value or default_of(name)


def number_list(container: Any, name: str, example: str) -> list[Any] | None:
    """A comma list of numbers (``ints``/``floats`` settings), prefilled with ``example``; read as the CLI reads it.

    Bad text raises the list parser's ConfigError, which names the setting (``cannot read … as sizes``).
    """
    item = _shown(name)
    return parse_list(container.text_input(item.label, example, key=name), _CAST[item.kind], name)


def count(container: Any, name: str, low: int, high: int) -> int | None:
    """A whole number between ``low`` and ``high``; ``low`` (the label says so) stands for a None default."""
    item = _shown(name)
    default = default_of(name)
    value = int(container.number_input(item.label, low, high, low if default is None else default, key=name))
    return None if default is None and value == low else value


def amount(container: Any, name: str, top: float | None = None, **options: Any) -> float | None:
    """An optional number from 0 (to ``top``); blank (the start) means the setting is not stated (None)."""
    item = _shown(name)
    value = container.number_input(item.label, 0.0, top, None, key=name, help=item.help, **options)
    return None if value is None else float(value)
