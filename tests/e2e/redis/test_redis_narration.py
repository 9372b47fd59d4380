"""The narration reference on the Redis store: set, read by the scene, exported and
imported again (a real redis-server per test, as the other Redis tests)."""

from __future__ import annotations

import json
from pathlib import Path

import soundfile as sf

from foley_tui.scene.build import build_scene
from foley_tui.scene.narration import make_narration, read_narration, write_narration
from foley_tui.store.redis.service import RedisSessionService
from tests.scene_fixtures import WORDS, narration


def test_the_redis_store_carries_the_narration(
    service: RedisSessionService, tmp_path: Path
) -> None:
    audio = tmp_path / "narration.wav"
    sf.write(str(audio), narration(48000), 48000, subtype="FLOAT")
    words = tmp_path / "words.json"
    words.write_text(json.dumps(WORDS))
    session_id = service.create("scene on redis")
    store = service.get(session_id)
    assert read_narration(store) is None
    write_narration(store, make_narration(audio, words))
    stored = read_narration(service.get(session_id))
    assert stored is not None and stored.path == audio.resolve() and len(stored.words) == 5
    assert build_scene(service.get(session_id)).words == WORDS
    doc = service.export_session(session_id)
    assert doc["narration"]["sha256"] == stored.sha256
    service.delete(session_id)
    assert service.import_session(doc) == session_id
    again = read_narration(service.get(session_id))
    assert again is not None and again.to_record() == stored.to_record()
    write_narration(service.get(session_id), None)
    assert read_narration(service.get(session_id)) is None
