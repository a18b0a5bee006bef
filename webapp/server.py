"""``python app.py``: settings from flags and the environment, then the web app on 127.0.0.1:7860.

Order of work in ``main()``: read the corpus and tables (about a second), start opening the
search index in the background (built on first run, progress on the terminal and in the page's
status line), then serve. Nothing is loaded when this module or ``app`` is imported.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import sys

log = logging.getLogger("webapp")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Flags win over COTATI_* variables, which win over GRADIO_SERVER_NAME / GRADIO_SERVER_PORT
    (what gradio users and hosting platforms set), which win over the defaults (``settings``).
    ``args.settings`` is the resolved ``settings.Settings``."""
    import settings

    d = {s.name: s.default for s in settings.SETTINGS}
    parser = argparse.ArgumentParser(prog="python app.py", description="The Cotati land-use code assistant (web app).")
    parser.add_argument("--host", help=f"address to bind (env COTATI_HOST, else GRADIO_SERVER_NAME; default {d['host']}, "
                                       "this machine only)")
    parser.add_argument("--port", type=int, help=f"port (env COTATI_PORT, else GRADIO_SERVER_PORT; default {d['port']})")
    parser.add_argument("--allowed-hosts", type=lambda text: tuple(n.strip() for n in text.split(",") if n.strip()),
                        metavar="NAMES", help="comma-separated names the app answers to in the Host header; others get "
                                              "400 (env COTATI_ALLOWED_HOSTS; '*' allows any; default: the bound "
                                              "address, localhost and 127.0.0.1)")
    parser.add_argument("--planning-contact",
                        help="the Planning Department contact line shown with answers the code does not give "
                             "(env COTATI_PLANNING_CONTACT; none by default)")
    parser.add_argument("--concurrency", type=int,
                        help=f"requests answered at once (env COTATI_CONCURRENCY; default {d['concurrency']})")
    parser.add_argument("--queue-size", type=int,
                        help="requests waiting at most; more are refused at once with 'Queue is full' "
                             f"(env COTATI_QUEUE_SIZE; default {d['queue_size']})")
    parser.add_argument("--allow-degraded", action="store_true",
                        help="start even when a corpus document is missing, unreadable or changed (the page then "
                             "shows a banner naming it); without it the app refuses to start")
    args = parser.parse_args(argv)
    try:
        resolved = settings.load({name: getattr(args, name, None) for name in d})
    except settings.SettingError as error:
        raise SystemExit(f"error: {error}") from None
    # Only the settings the Settings record carries (COTATI_READER is listed but read by the assistant itself).
    args = argparse.Namespace(**{**vars(args), **{name: getattr(resolved, name) for name in d if hasattr(resolved, name)}},
                              settings=resolved)
    args.planning_contact = args.planning_contact.strip()
    if not 1 <= args.port <= 65535:
        parser.error(f"--port must be 1-65535, got {args.port}")
    if args.concurrency < 1 or args.queue_size < 1:
        parser.error("--concurrency and --queue-size must be at least 1")
    bad = [name for name in args.allowed_hosts if "*" in name[1:] or name.startswith("*") and name not in ("*",) and
           not name.startswith("*.")]
    if bad:
        parser.error(f"allowed host {bad[0]!r}: a '*' may only stand alone or begin a name ('*.example.org')")
    return args


def launch(demo, host: str, port: int, concurrency: int, queue_size: int, block: bool = True, banner: str = "",
           allowed_hosts: tuple[str, ...] = (), max_body: int | None = None):
    """Queue with a concurrency limit and a bounded size, then serve: no share link, no files taken or
    served beyond the app's, a Host header among ``allowed_hosts`` (default: ``host``, localhost and
    127.0.0.1), request bodies of at most ``max_body`` bytes (default ``COTATI_MAX_REQUEST_BYTES``),
    headers that forbid framing (``webapp.guard``)."""
    import settings
    import gradio as gr

    from settings import default_hosts as _default_hosts

    from .guard import event_inputs, middleware
    from .ui import CSS, JS

    from .sessions import release_middleware, start_sweeper

    demo.queue(default_concurrency_limit=concurrency, max_size=queue_size, api_open=False)
    start_sweeper(demo, settings.value("session_idle_seconds"))
    theme = gr.themes.Default(primary_hue="blue", font=["system-ui", "Segoe UI", "Roboto", "Helvetica", "Arial", "sans-serif"],
                              font_mono=["ui-monospace", "DejaVu Sans Mono", "monospace"]).set(
        # WCAG AA: white on blue-700 is 6.7:1 (gradio's default white on orange is 2.8:1).
        button_primary_background_fill="#1d4ed8", button_primary_background_fill_hover="#1e40af",
        button_primary_text_color="#ffffff", button_primary_border_color="#1d4ed8",
        body_text_color_subdued="#374151", block_info_text_color="#374151", input_placeholder_color="#4b5563")
    return demo.launch(server_name=host, server_port=port, share=False, ssr_mode=False, pwa=False, mcp_server=False,
                       enable_monitoring=False, show_error=False, allowed_paths=[], max_file_size="1kb",
                       footer_links=["api"], theme=theme, css=CSS, js=JS, head=_banner_head(banner),
                       prevent_thread_lock=not block, quiet=False,
                       state_session_capacity=settings.value("session_capacity"),
                       app_kwargs={"middleware": middleware(allowed_hosts or _default_hosts(host),
                                                            max_body or settings.value("max_request_bytes"),
                                                            inputs=lambda: event_inputs(demo))
                                   + [release_middleware(demo)]})


def _banner_head(banner: str) -> str:
    """A script that puts ``banner`` at the top of the page as an alert ("" when there is none)."""
    if not banner:
        return ""
    import html
    import json

    text = json.dumps(banner).replace("<", "\\u003c")
    # gradio adds the head after the page has loaded: run at once then, or on DOMContentLoaded before.
    return ("<script>(function(){function show(){if(document.getElementById('cotati-degraded'))return;"
            "var d=document.createElement('div');d.id='cotati-degraded';d.setAttribute('role','alert');"
            "d.textContent=" + text + ";d.style.cssText='background:#fef3c7;color:#78350f;border-bottom:2px solid "
            "#b45309;padding:.6em 1em;font-weight:600';document.body.insertBefore(d,document.body.firstChild);}"
            "if(document.readyState==='loading'){document.addEventListener('DOMContentLoaded',show);}else{show();}"
            "})();</script>"
            f"<noscript><div role=\"alert\">{html.escape(banner)}</div></noscript>")


def corpus_problems(allow_degraded: bool) -> tuple[int | None, str]:
    """(exit status, banner): the corpus is verified before anything is served. A missing, unreadable
    or changed document stops the app with one line per document (status 1) unless ``allow_degraded``,
    which starts it with a banner naming them. A broken manifest always stops it."""
    from ingest import IngestError
    from ingest.integrity import verify_corpus

    try:
        errors = verify_corpus()
    except IngestError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1, ""
    if not errors:
        return None, ""
    for error in errors:
        print(f"{'warning' if allow_degraded else 'error'}: {error}", file=sys.stderr)
    if not allow_degraded:
        return 1, ""
    names = ", ".join(os.path.basename(error.path) for error in errors)
    return None, (f"Degraded: {len(errors)} corpus document(s) could not be verified ({names}); answers may "
                  "leave out what they say. Tell the site's operator.")


def main(argv: list[str] | None = None) -> int:
    import settings

    args = parse_args(argv)
    try:
        settings.configure_logging(args.settings.log_level)
    except settings.SettingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    from .memory import tune_allocator

    tuned = tune_allocator()  # before the worker threads that would each take an arena
    if tuned:
        log.debug("allocator: %s", ", ".join(f"{k}={v}" for k, v in tuned.items()))
    # gradio reads its own variables when it launches: hand it the resolved values (a flag wins; a
    # GRADIO_SERVER_PORT=abc overridden by --port must not reach gradio's int()).
    os.environ["GRADIO_SERVER_PORT"], os.environ["GRADIO_SERVER_NAME"] = str(args.port), args.host
    # Offline: no telemetry or version check from gradio, no hub look-ups from the model loader.
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    from .engine import Engine
    from .ui import build_demo

    status, banner = corpus_problems(args.allow_degraded)
    if status is not None:
        return status
    problem = _setup_problem(args.host, args.port)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    log.info("loading the corpus and tables…")
    engine = Engine.load()
    engine.question_log = _question_log(args.settings)
    engine.warmers = (warm_gradio,)
    engine = _following(engine, args.settings)
    demo = build_demo(engine, contact=args.planning_contact)  # imports gradio; the model's imports start after, not alongside
    engine.start_index()
    log.info("serving on http://%s:%s (Ctrl+C stops); answering to Host %s", args.host, args.port,
             ", ".join(args.settings.hosts))
    from .shutdown import on_sigterm

    on_sigterm(demo.close, args.settings.shutdown_seconds)  # finish the answers in flight, then stop
    try:
        launch(demo, args.host, args.port, args.concurrency, args.queue_size, banner=banner,
               allowed_hosts=args.settings.hosts, max_body=args.settings.max_request_bytes)
    except OSError as error:  # the port was taken between the check and the start
        print(f"error: cannot serve on {args.host}:{args.port} ({error}); stop the other server or choose --port",
              file=sys.stderr)
        return 1
    return 0


def _following(engine, config):
    """The engine answers go through: it follows a signed change of the corpus (``webapp.follow``)."""
    from ingest.manifest import default_corpus_dir

    from .engine import Engine
    from .follow import Following

    return Following(engine, config.corpus_dir or default_corpus_dir(), Engine.load, config.corpus_check_seconds)


def warm_gradio() -> None:
    """gradio runs every event inside its matplotlib backend switch, which imports matplotlib and
    pyplot (2-3 s) on the app's first event, whatever it is: do that before "ready" instead."""
    from gradio import utils as gradio_utils

    with gradio_utils.MatplotlibBackendMananger():  # gradio's spelling
        pass


def _question_log(config):
    """The question log the app writes (``COTATI_QUESTION_LOG=0``: none). A log that cannot be opened,
    migrated or written is one warning line (``open_log``), and the app serves without a log."""
    if not config.question_log:
        log.info("question log: off (COTATI_QUESTION_LOG=0)")
        return None
    from assistant.questionlog import open_log

    opened = open_log(config.log_path, config.log_retention_days, config.log_max_rows, config.log_max_mb * 2**20)
    if opened is not None:
        log.info("question log: %s (kept %d days; `python -m assistant log --unanswered`)", opened.path,
                 config.log_retention_days)
    return opened


def _setup_problem(host: str, port: int) -> str:
    """One line saying why the app cannot start (the index folder is a file, the port is taken), or ""."""
    import socket

    from index.store import check_index_dir
    from index.types import IndexStoreError

    try:
        check_index_dir()
    except IndexStoreError as error:
        return str(error)
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is no clash
            probe.bind(address)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return f"port {port} on {host} is in use; stop the other server or choose --port (or COTATI_PORT)"
        return f"cannot listen on {host}:{port} ({error.strerror or error}); check --host and --port"
    return ""
