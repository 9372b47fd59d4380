"""The headless scene model: foley's onset grammar, word timelines, effective placement,
narration references, and the scene (picks placed on a clock) the mixer plays.

Headless: never imports textual. The package imports none of its modules (each is imported
where it is used: opening the app needs the placement, not the narration or the words).

- :mod:`foley_tui.scene.onset`: parse and resolve onsets exactly as foley's weave.
- :mod:`foley_tui.scene.reading`: :func:`read_onset`, how foley will read an onset.
- :mod:`foley_tui.scene.placement`: a pick's effective placement, as foley's plan.
- :mod:`foley_tui.scene.words`: word timelines in foley's aligner format.
"""
