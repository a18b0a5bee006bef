"""The Gradio web app over the assistant (``python app.py``).

One concern per module, nothing heavy at import time:

- ``engine``: an adapter over ``assistant.service.Assistant`` (answers, section and table lookups,
  land-use rows, the search index built in the background with its progress).
- ``views``: pure rendering of answers, sections, permit rows and citation strings (Markdown/HTML).
- ``ui``: the ``gr.Blocks`` layout and its events (imports gradio).
- ``server``: the command line over ``settings``, the question log, logging, ``main()``.
- ``guard``: the surface as middleware: allowed Host names, no uploads, no framing.
"""
