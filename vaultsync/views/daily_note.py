"""Today's daily note, found as Obsidian's Daily notes plugin would (its settings, its date
format, its template), and the digest's lines appended to it (``views.digest``)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..regions import END_MARKER, begin_marker
from ..write import file_signature, write_note_atomically

log = logging.getLogger(__name__)

DAILY_SETTINGS = ".obsidian/daily-notes.json"
_ENTRY = re.compile(r"^- \[\[([^\]|#]+)")


def entry_key(line: str) -> str | None:
    """The note a digest line links to (casefolded), or None for another line."""
    found = _ENTRY.match(line)
    return found.group(1).strip().casefold() if found else None


_MOMENT = re.compile(r"\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|dddd|ddd|.", re.S)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def format_moment(fmt: str, day: dt.date) -> str:
    """``day`` written in a moment.js format, as Obsidian names daily notes (English names).

    Supported: ``YYYY YY MMMM MMM MM M DD D Do dddd ddd`` and ``[literal text]``; any other
    character is written as is.
    """
    def token(t: str) -> str:
        if t.startswith("["):
            return t[1:-1]
        ordinal = "th" if 10 <= day.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
        return {
            "YYYY": f"{day.year:04d}", "YY": f"{day.year % 100:02d}",
            "MMMM": _MONTHS[day.month - 1], "MMM": _MONTHS[day.month - 1][:3],
            "MM": f"{day.month:02d}", "M": str(day.month),
            "DD": f"{day.day:02d}", "D": str(day.day), "Do": f"{day.day}{ordinal}",
            "dddd": _WEEKDAYS[day.weekday()], "ddd": _WEEKDAYS[day.weekday()][:3],
        }.get(t, t)

    return "".join(token(m.group(0)) for m in _MOMENT.finditer(fmt))


@dataclass(frozen=True)
class DailyNoteSettings:
    """Obsidian's Daily notes settings; ``configured`` is False when the file does not exist."""

    folder: str = ""
    format: str = "YYYY-MM-DD"
    template: str = ""
    configured: bool = False


def daily_note_settings(vault: Path) -> DailyNoteSettings:
    """``.obsidian/daily-notes.json`` (``folder``, ``format``, ``template``), with Obsidian's
    defaults (vault root, ``YYYY-MM-DD``, no template) for missing or empty values."""
    try:
        data = json.loads((Path(vault) / DAILY_SETTINGS).read_text("utf-8"))
    except FileNotFoundError:
        return DailyNoteSettings()
    except (OSError, ValueError):
        return DailyNoteSettings(configured=True)
    data = data if isinstance(data, dict) else {}

    def text(key: str, default: str) -> str:
        value = data.get(key)
        return value.strip() if isinstance(value, str) and value.strip() else default

    return DailyNoteSettings(text("folder", "").strip("/"), text("format", "YYYY-MM-DD"),
                             text("template", ""), True)


def daily_note_path(vault: Path, today: dt.date) -> tuple[str, DailyNoteSettings]:
    """The vault-relative path of today's daily note, and the settings it came from."""
    settings = daily_note_settings(vault)
    name = format_moment(settings.format, today) + ".md"
    return (f"{settings.folder}/{name}" if settings.folder else name), settings


def append_lines(vault: Path, lines: list[str], today: dt.date, *, heading: str) -> str | None:
    """Add ``lines`` to today's daily note, inside its own generated region; return its path,
    or ``None`` when nothing was written.

    Where: the folder and name format of ``.obsidian/daily-notes.json``. The note is created
    (from the settings' template, ``{{title}}``, ``{{date}}``, ``{{time}}`` filled in) only when that
    file exists: the user then told Obsidian where daily notes go. Without it, Obsidian's
    defaults are used (``YYYY-MM-DD.md`` at the root) and only an existing note is appended to.
    The user's text is never changed: the region goes at the end of the note; later syncs add
    the lines it lacks (one per paper). A note whose region markers are broken is left alone.
    """
    from ..note_reading import find_region

    vault = Path(vault)
    if not lines:
        return None
    rel, settings = daily_note_path(vault, today)
    target = vault / rel
    signature = file_signature(target)
    if signature is None and not settings.configured:
        return None
    if signature is None:
        text = _daily_template(vault, settings, today, PurePosixPath(rel).stem)
    else:
        text = target.read_text("utf-8")
    span = find_region(text)
    if span is None and ("%% vaultsync:" in text):
        log.warning("%s: its vaultsync region markers are broken; not appended to", rel)
        return None
    old = span.text.splitlines() if span else [heading, ""]
    have = {entry_key(line) for line in old}
    add = [line for line in lines if entry_key(line) not in have or entry_key(line) is None]
    if span is not None and not add:
        return None
    body = "\n".join([*old, *add]).rstrip("\n") + "\n"
    region = f"{begin_marker(body)}\n{body}{END_MARKER}\n"
    if span is None:
        gap = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        new_text = text + gap + region
    else:
        new_text = text[:span.begin] + region + text[span.after_end:]
    write_note_atomically(rel, new_text, vault=vault, expect=signature)
    return rel


def _daily_template(vault: Path, settings: DailyNoteSettings, today: dt.date, title: str) -> str:
    if not settings.template:
        return ""
    name = settings.template if settings.template.endswith(".md") else settings.template + ".md"
    try:
        text = (vault / name).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    now = dt.datetime.combine(today, dt.time())
    text = re.sub(r"\{\{\s*date:([^}]*)\}\}", lambda m: format_moment(m.group(1).strip(), today), text)
    text = re.sub(r"\{\{\s*date\s*\}\}", format_moment(settings.format, today), text)
    text = re.sub(r"\{\{\s*time\s*\}\}", now.strftime("%H:%M"), text)
    return re.sub(r"\{\{\s*title\s*\}\}", title, text)
