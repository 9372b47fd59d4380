"""Reusable widgets of the audition screen."""
