"""The app resumes the collector that `foley-tui open` paused for its start-up."""

from __future__ import annotations

from tests.ui.conftest import SIZE, Session, ready


async def test_the_app_resumes_the_collector_paused_for_start_up_once_rows_are_shown(
    session: Session,
) -> None:
    """`foley-tui open` pauses the collector while it starts (foley_tui.startup); the
    audition resumes it, freezing start-up's objects, once its rows are on screen."""
    import gc

    from foley_tui import startup

    app = session.app()
    startup.pause_gc()
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            await pilot.pause()
            assert screen.loader.painted.is_set()
            assert gc.isenabled() and not startup.gc_paused()
            assert gc.get_freeze_count() > 0
    finally:
        startup.resume_gc()
        gc.unfreeze()
