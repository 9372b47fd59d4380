"""Screens: the audition screen (main), its modals, help, and the sessions screen."""
