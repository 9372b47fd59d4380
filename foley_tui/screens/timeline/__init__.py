"""The timeline screen and its scene playback."""
