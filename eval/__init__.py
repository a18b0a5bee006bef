"""Evaluation of the assistant and the retrievers against the hand-checked gold set.

Modules: ``gold`` (reading eval/gold.jsonl), ``records`` (answer/result records), ``score``
(pure metric functions; their docstring is the definition of every metric), ``run`` (asking the
assistant and searching the index, both injectable), ``report`` (table, markdown, chart),
``baseline`` (the regression record), ``atomic`` (atomic writes). CLI: ``python -m eval``.
Nothing heavy is imported here.
"""
