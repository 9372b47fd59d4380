"""foley-tui: audition, pick and place sound-effect candidates in foley sessions."""

from __future__ import annotations

__version__ = "0.1.0"
