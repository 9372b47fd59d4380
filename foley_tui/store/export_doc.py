"""The session export document: its constants, checksum, strict parsing and validation.

An export is one JSON object (``format``, ``schema_version``, the namespaces, the
journal, the conversation and usage of version 2...) covered by a SHA-256 checksum.
:class:`~foley_tui.store.service.SessionService` writes it and reads it back through
these functions; the first offence of a document is refused with a message naming it.

Headless: never imports textual.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from foley_tui.domain import ValidationError, validate_layer, validate_onset
from foley_tui.limits import sanitize_view
from foley_tui.safe_io import MAX_RECORD_BYTES
from foley_tui.store.codec import (
    InvalidKeyError,
    dumps,
    encode_key,
    loads_object,
    validate_session_id,
)
from foley_tui.store.errors import InvalidSessionIdError, SessionImportError
from foley_tui.store.messages import MESSAGES_FILE, check_records, encode_lines
from foley_tui.store.narration import (
    NarrationError,
    NarrationRecord,
    read_record,
    record_files,
)
from foley_tui.store.reads import Problems
from foley_tui.store.records import (
    JOURNAL_KINDS,
    SCHEMA_VERSION,
    JournalEntry,
    candidate_key,
    iso,
    now_utc,
    parse_iso,
)
from foley_tui.store.session import SessionStore
from foley_tui.store.session_dirs import NAMESPACES
from foley_tui.store.usage import USAGE_FILE, Usage

EXPORT_FORMAT = "foley-tui-session"
#: Keys only a version 2 export may hold (G's messages and usage are checked by
#: _validate_ledger).
V2_KEYS = frozenset({"raw"})
EXPORT_KEYS = V2_KEYS | frozenset(
    {
        "format",
        "schema_version",
        "exported_at",
        "session_id",
        "meta",
        "candidates",
        "picks",
        "rejects",
        "journal",
        "problems",
        "checksum",
        # schema version 2 (G): the conversation and the usage counters
        "messages",
        "usage",
        # schema version 2 (F): the narration reference (path, sha256, word timeline)
        "narration",
        # schema version 2: our marks (rating, hidden, region) by sound id, when any
        "marks",
    }
)
#: The export schema this version writes, and every one it still imports.
EXPORT_SCHEMA_VERSION = 2
IMPORTABLE_SCHEMA_VERSIONS = (1, 2)


def canonical_bytes(doc: dict[str, Any]) -> bytes:
    """The canonical form the export checksum covers: every key but ``checksum``."""
    body = {k: v for k, v in doc.items() if k != "checksum"}
    return json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def checksum_of(doc: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical_bytes(doc)).hexdigest()


class _DuplicateKeyError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _DuplicateKeyError(key)
        obj[key] = value
    return obj


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (an export never holds it)")


def parse_export(raw: bytes, source: str = "the export") -> Any:
    """Parse an export file strictly: UTF-8 JSON with no duplicate keys and no NaN.

    A duplicated key would let two readers see two different sessions in one file (and
    a checksum over the parsed form cannot notice); NaN/Infinity are not JSON.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SessionImportError(
            f"{source} is not UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant)
    except _DuplicateKeyError as exc:
        raise SessionImportError(f"{source}: duplicate key {exc.args[0]!r} in one object") from None
    except json.JSONDecodeError as exc:
        raise SessionImportError(
            f"{source} is not a JSON export ({exc.msg} at line {exc.lineno})"
        ) from None
    except RecursionError:
        raise SessionImportError(f"{source}: JSON nested too deeply") from None
    except ValueError as exc:
        raise SessionImportError(f"{source}: {exc}") from None


def listed_keys(store: SessionStore) -> list[str]:
    """Keys of the candidates from their folder itself (file names decoded one by one),
    never through the index; foreign names are left to the other reads to report."""
    return store.backend.names("candidates", Problems(list))


def _canonical_ok(value: Any) -> bool:
    try:
        canonical_bytes({"v": value})
    except (ValueError, RecursionError):
        return False
    return True


def carry_raw(doc: dict[str, Any], store: SessionStore) -> None:
    """Move every record the canonical JSON cannot carry into ``raw`` as its file's bytes."""
    raw: dict[str, dict[str, str]] = {}
    for name in NAMESPACES:
        for key, value in list(doc[name].items()):
            if _canonical_ok(value) and _importable(name, key, value):
                continue
            del doc[name][key]
            try:
                data = store.backend.raw(name, key)
            except (OSError, KeyError, ValueError) as exc:
                doc["problems"].append(
                    {"namespace": name, "key": key, "reason": f"not exported: {exc}"}
                )
                continue
            raw.setdefault(name, {})[key] = base64.b64encode(data).decode("ascii")
    doc["raw"] = raw
    if not _canonical_ok(doc["meta"]):  # a title with a lone surrogate...
        title = doc["meta"].get("title")
        if isinstance(title, str):
            doc["meta"]["title"] = title.encode("utf-8", "replace").decode("utf-8")


def _importable(name: str, key: str, value: Any) -> bool:
    """Whether the import's strict checks take ``value`` as JSON (a layer or onset foley
    wrote that they refuse, ``"foreground"`` or ``[1, 2]``, travels as its file's bytes)."""
    if not isinstance(value, dict):
        return False
    try:
        _check_record(name, key, value)
    except SessionImportError:
        return False
    return True


def _offence(where: str, message: str) -> SessionImportError:
    return SessionImportError(f"{where}: {message}")


def _check_record(name: str, key: str, value: dict[str, Any], *, raw: bool = False) -> None:
    """The strict checks of one imported record (the first offence is raised).

    ``raw``: a file carried as its bytes because JSON cannot hold one of its values (a
    NaN onset foley wrote) or the checks refuse one (a layer ``"foreground"``): its layer
    and onset are foley's, whatever they are, and it is restored as it was."""
    where = f"{name}/{key}"
    if name == "candidates":
        if candidate_key(value) not in (None, key):
            raise _offence(where, f"sound.id is {candidate_key(value)!r}")
        return
    if value.get("sound_id") != key:
        raise _offence(where, f"sound_id is {value.get('sound_id')!r}, not the key")
    if name == "picks":
        if raw:
            return  # foley's own values, restored byte for byte
        try:
            validate_layer(value.get("layer"))
            validate_onset(value.get("onset"))
        except ValidationError as exc:
            raise _offence(where, str(exc)) from None
    elif not isinstance(value.get("reason"), str | None):
        raise _offence(where, "reason must be text or null")


def _check_journal(journal: object) -> list[dict[str, Any]]:
    if not isinstance(journal, list):
        raise SessionImportError("'journal' must be a list of journal records")
    for i, record in enumerate(journal):
        where = f"journal[{i}]"
        if not isinstance(record, dict):
            raise _offence(where, "a record must be an object")
        seq = record.get("seq")
        if type(seq) is not int or seq < 0:  # bool is an int subclass: `true` is refused
            raise _offence(where, f"seq must be a non-negative integer (got {seq!r})")
        if not isinstance(record.get("sound_id"), str):
            raise _offence(where, "sound_id must be text")
        target = record.get("target")
        if target is not None and type(target) is not int:
            raise _offence(where, f"target must be an integer or null (got {target!r})")
        if record.get("kind", "do") not in JOURNAL_KINDS:
            raise _offence(where, f"unknown kind {record.get('kind')!r}")
        if JournalEntry.from_record(record) is None:
            raise _offence(where, "not a journal record")
    return journal


def _check_raw(raw: object, plain: dict[str, dict[str, Any]]) -> dict[str, dict[str, bytes]]:
    """Version 2's ``raw``: namespace -> key -> base64 of a file's exact bytes."""
    if not isinstance(raw, dict):
        raise SessionImportError("'raw' must be an object of namespace -> records")
    out: dict[str, dict[str, bytes]] = {}
    for name, items in raw.items():
        if name not in NAMESPACES or not isinstance(items, dict):
            raise _offence(f"raw/{name}", "not a namespace of records")
        for key, text in items.items():
            where = f"raw/{name}/{key}"
            try:
                encode_key(key)
            except InvalidKeyError as exc:
                raise _offence(where, str(exc)) from None
            if key in plain[name]:
                raise _offence(where, "the record is also given as JSON")
            if not isinstance(text, str) or len(text) > MAX_RECORD_BYTES * 4 // 3 + 4:
                raise _offence(where, "must be the base64 of a file under 16 MB")
            try:
                data = base64.b64decode(text, validate=True)
                value = loads_object(data)
            except (binascii.Error, ValueError) as exc:
                raise _offence(where, f"not a stored record ({exc})") from None
            _check_record(name, key, value, raw=True)
            out.setdefault(name, {})[key] = data
    return out


def _check_meta(meta_in: object) -> dict[str, Any]:
    if not isinstance(meta_in, dict):
        raise SessionImportError("'meta' must be an object")
    for field_name in ("title", "cursor", "created", "updated"):
        value = meta_in.get(field_name)
        if value is not None and not isinstance(value, str):
            raise _offence(f"meta/{field_name}", f"must be text or null (got {value!r})")
    for field_name in ("created", "updated"):
        value = meta_in.get(field_name)
        if value is not None and parse_iso(value) is None:
            raise _offence(f"meta/{field_name}", f"not a usable date: {value[:40]!r}")
    view = meta_in.get("view")
    if view is not None and not isinstance(view, dict):
        raise _offence("meta/view", "must be an object")
    title = meta_in.get("title")
    return {
        "schema_version": SCHEMA_VERSION,
        "title": title if isinstance(title, str) and title else None,
        "created": meta_in.get("created") or iso(now_utc()),
        "updated": meta_in.get("updated") or iso(now_utc()),
        "opened": None,
        "cursor": meta_in.get("cursor"),
        # Clamped where it enters: never louder than the volume keys allow.
        "view": sanitize_view(view),
        "origin": meta_in.get("origin")
        if meta_in.get("origin") in ("foley", "foley-tui")
        else "foley-tui",
    }


def validate_export(doc: object) -> tuple[str, tuple[Any, ...]]:
    """Check an export document fully before anything is written.

    Strict: the first offence (a wrong type, a record whose id is not its key, a
    journal ``seq`` of ``true``...) is refused with a message naming it.
    """
    if not isinstance(doc, dict):
        raise SessionImportError("an export must be a JSON object")
    if doc.get("format") != EXPORT_FORMAT:
        raise SessionImportError(f"not a foley-tui session export (format {doc.get('format')!r})")
    version = doc.get("schema_version")
    if type(version) is not int or version not in IMPORTABLE_SCHEMA_VERSIONS:
        raise SessionImportError(
            f"unsupported schema version {version!r} (this foley-tui reads versions "
            f"{', '.join(map(str, IMPORTABLE_SCHEMA_VERSIONS))})"
        )
    allowed = EXPORT_KEYS if version >= 2 else EXPORT_KEYS - V2_KEYS
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise SessionImportError(f"unknown keys in the export: {', '.join(map(str, unknown))}")
    checksum = doc.get("checksum")
    if not isinstance(checksum, str):
        raise SessionImportError("the export has no checksum")
    try:
        expected = checksum_of(doc)
    except (ValueError, RecursionError) as exc:
        raise SessionImportError(f"the export holds a value JSON cannot carry: {exc}") from None
    if checksum != expected:
        raise SessionImportError("checksum mismatch: the export was modified or is damaged")
    try:
        session_id = validate_session_id(doc.get("session_id"))
    except InvalidSessionIdError as exc:
        raise SessionImportError(str(exc)) from None
    meta = _check_meta(doc.get("meta"))
    namespaces: dict[str, dict[str, Any]] = {}
    for name in NAMESPACES:
        values = doc.get(name)
        if not isinstance(values, dict):
            raise SessionImportError(f"{name!r} must be an object of sound id -> record")
        for key, value in values.items():
            try:
                encode_key(key)
            except InvalidKeyError as exc:
                raise _offence(name, str(exc)) from None
            if not isinstance(value, dict):
                raise _offence(f"{name}/{key}", "a record must be an object")
            _check_record(name, key, value)
        namespaces[name] = values
    raw = _check_raw(doc.get("raw", {}), namespaces)
    # A sound both picked and rejected is foley's own state (a conflict): imported as is.
    journal = _check_journal(doc.get("journal", []))
    messages, usage = _validate_ledger(doc)
    return session_id, (meta, *namespaces.values(), journal, messages, usage, raw)


def ledger_files(messages: list[dict[str, Any]], usage: Usage) -> dict[str, bytes]:
    """The state files holding an imported conversation and usage counters (none when
    there are none)."""
    files: dict[str, bytes] = {}
    if messages:
        files[MESSAGES_FILE] = encode_lines(messages)
    if usage != Usage():
        files[USAGE_FILE] = dumps(usage.to_record())
    return files


def narration_record(store: SessionStore) -> dict[str, Any] | None:
    """The session's narration reference as exported (a damaged one is left out: the
    export reports what it can carry, and ``session narration`` says what is wrong)."""
    try:
        stored = read_record(store.state)
    except NarrationError:
        return None
    return stored.to_record() if stored is not None else None


def narration_files(narration: NarrationRecord | None) -> dict[str, bytes]:
    """The state file holding an imported narration reference (none without one)."""
    return record_files(narration)


def validate_narration(doc: dict[str, Any]) -> NarrationRecord | None:
    """The narration reference of an export (schema 2, optional)."""
    record = doc.get("narration")
    if record is None:
        return None
    if doc.get("schema_version") == 1:
        raise SessionImportError("'narration' needs schema version 2")
    try:
        return NarrationRecord.from_record(record)
    except NarrationError as exc:
        raise SessionImportError(f"'narration': {exc}") from None


def _validate_ledger(doc: dict[str, Any]) -> tuple[list[dict[str, Any]], Usage]:
    """The conversation and usage counters of an export (schema 2; absent in 1)."""
    if doc.get("schema_version") == 1 and ("messages" in doc or "usage" in doc):
        raise SessionImportError("'messages' and 'usage' need schema version 2")
    try:
        messages = check_records(doc.get("messages", []))
        usage = Usage.from_record(doc.get("usage", {}))
    except ValueError as exc:
        raise SessionImportError(str(exc)) from None
    return messages, usage


def validate_marks(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Our marks records of an export (optional; schema 2): sound id -> record."""
    marks = doc.get("marks", {})
    if not isinstance(marks, dict):
        raise SessionImportError("'marks' must be an object of sound id -> marks record")
    if marks and doc.get("schema_version") == 1:
        raise SessionImportError("'marks' needs schema version 2")
    for key, record in marks.items():
        try:
            encode_key(key)
        except InvalidKeyError as exc:
            raise _offence(f"marks[{key!r}]", str(exc)) from None
        if not isinstance(record, dict):
            raise _offence(f"marks[{key!r}]", "not a marks record")
    return marks
