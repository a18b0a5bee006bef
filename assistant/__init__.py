"""Deterministic answers: understand a question, look up table cells, quote passages, cite them.

``load_assistant()`` reads the corpus, tables and index once; ``Assistant.ask(question)``
returns an ``Answer`` whose ``to_dict()`` is the JSON contract of ``python -m assistant ask``.
"""

from __future__ import annotations


def load_assistant(*args, **kwargs):
    from .service import load_assistant as _load

    return _load(*args, **kwargs)


def __getattr__(name: str):
    """``from assistant import Assistant`` (the class ``load_assistant`` returns), imported on first use."""
    if name == "Assistant":
        from .service import Assistant

        return Assistant
    raise AttributeError(f"module 'assistant' has no attribute {name!r}")


__all__ = ["Assistant", "load_assistant"]
