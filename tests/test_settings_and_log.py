"""The settings module (one place, flags > COTATI_* > GRADIO_* > defaults, every setting in the
README) and the question log (SQLite: survives a restart, retention deletes old rows, grouping)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import settings
from assistant.questionlog import QuestionLog, group
from assistant.types import Answer

REPO = Path(__file__).resolve().parent.parent


def test_flags_beat_cotati_variables_beat_gradio_variables_beat_defaults():
    env = {}
    assert settings.value("port", environ=env) == 7860
    env["GRADIO_SERVER_PORT"] = "7911"
    assert settings.value("port", environ=env) == 7911
    env["COTATI_PORT"] = "8000"
    assert settings.value("port", environ=env) == 8000
    assert settings.value("port", 9000, environ=env) == 9000
    assert settings.source("port", env) == "COTATI_PORT"


@pytest.mark.parametrize("variable, text, message", [
    ("COTATI_PORT", "eighty", "COTATI_PORT='eighty' is not a whole number"),
    ("COTATI_QUESTION_LOG", "maybe", "COTATI_QUESTION_LOG='maybe' is not 1/0"),
    ("COTATI_LOW_CONFIDENCE", "high", "COTATI_LOW_CONFIDENCE='high' is not a number"),
])
def test_a_value_that_does_not_parse_is_one_line_naming_it(variable, text, message):
    with pytest.raises(settings.SettingError, match=re.escape(message)):
        settings.load(environ={variable: text})


def test_defaults_are_this_machine_with_the_log_on():
    loaded = settings.load(environ={})
    assert loaded.hosts == ("127.0.0.1", "localhost")
    assert settings.load(environ={"COTATI_HOST": "0.0.0.0"}).hosts == ("0.0.0.0", "localhost", "127.0.0.1")
    assert settings.load(environ={"COTATI_ALLOWED_HOSTS": "a.example, b.example"}).hosts == ("a.example", "b.example")
    assert loaded.question_log and loaded.log_retention_days == 90 and loaded.log_path.name == "questions.sqlite3"
    assert settings.load(environ={"COTATI_QUESTION_LOG": "off"}).question_log is False


def test_every_setting_is_in_the_reference_table():
    assert settings.table() in (REPO / "docs" / "reference.md").read_text(encoding="utf-8")


def test_no_cotati_variable_is_read_outside_settings():
    readers = []
    for path in sorted(REPO.glob("*.py")) + sorted(p for d in ("assistant", "ingest", "index", "webapp", "eval")
                                                   for p in (REPO / d).rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        text = path.read_text(encoding="utf-8")
        if name != "settings.py" and re.search(
                r"(environ(\.get)?\s*[\[(]\s*['\"]COTATI_|getenv\(\s*['\"]COTATI_|environ\.get\(\s*[A-Z_]*_ENV\b)", text):
            readers.append(name)
    assert readers == []


def _answer(question: str, route: str = "passage", confidence: float | None = 0.5, abstained: bool = False) -> Answer:
    return Answer(question=question, answer="...", abstained=abstained, route=route, confidence=confidence)


def test_the_log_survives_a_restart(tmp_path):
    path = tmp_path / "var" / "questions.sqlite3"
    with QuestionLog(path) as log:
        log.record(_answer("Can I keep bees?", "abstain", None, True))
        log.record(_answer("Can I open a bar in CE?", "permit", 0.99))
    with QuestionLog(path) as log:  # a new process would open it the same way
        entries = log.entries()
    assert [(e.question, e.route, e.abstained, e.confidence) for e in entries] == [
        ("Can I keep bees?", "abstain", True, None), ("Can I open a bar in CE?", "permit", False, 0.99)]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entries[0].asked_at)


def test_retention_deletes_old_rows(tmp_path):
    path = tmp_path / "questions.sqlite3"
    now = datetime.now(timezone.utc)
    with QuestionLog(path, retention_days=90) as log:
        log.record(_answer("old question"), asked_at=now - timedelta(days=91))
        log.record(_answer("recent question"), asked_at=now - timedelta(days=89))
        assert len(log.entries()) == 2
    with QuestionLog(path, retention_days=90) as log:  # opening sweeps
        assert [e.question for e in log.entries()] == ["recent question"]
        assert log.prune(now + timedelta(days=2)) == 1
        assert log.entries() == []


def test_unanswered_are_the_declined_and_the_unsure_grouped_by_wording(tmp_path):
    with QuestionLog(tmp_path / "q.sqlite3") as log:
        for answer in (_answer("Can I keep bees?", "abstain", None, True), _answer("can i keep bees", "abstain", None, True),
                       _answer("Can I keep honey bees in my yard?", "passage", 0.6),
                       _answer("Can I open a bar in CE?", "permit", 0.99), _answer("17.44.065", "section", None),
                       _answer("What is a fence?", "unavailable", None, True), _answer("   ", "invalid", None, True)):
            log.record(answer)
        unanswered = log.unanswered(low_confidence=0.95)
    assert [e.question for e in unanswered] == ["Can I keep bees?", "can i keep bees", "Can I keep honey bees in my yard?"]
    groups = group(unanswered)
    assert [(g["question"], g["count"], g["declined"]) for g in groups] == [("Can I keep bees?", 3, 2)]
