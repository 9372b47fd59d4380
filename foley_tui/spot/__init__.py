"""The hand-off bundle: every placed pick as a timestamped Broadcast WAV, and the projects
that carry tracks, clip names and clip gains to an editor (REAPER RPP, AAF, OTIO), a cue
sheet, a reference mix, a README and the credits.

:func:`foley_tui.spot.bundle.spot` writes it from a session's scene, the same placements
``foley-tui scene`` lists. Headless: never imports textual.
"""
