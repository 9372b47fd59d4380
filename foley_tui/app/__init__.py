"""The Textual app: :class:`~foley_tui.app.foley_app.FoleyApp`, its stylesheet, the command
palette's commands and the watch on the controlling terminal."""
