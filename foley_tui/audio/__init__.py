"""The audio engine: resolve a candidate to a source, decode it in blocks, play it.

Headless: never imports textual.
"""
