"""The key registry: one table of remappable actions (per-screen tables gathered in
:mod:`foley_tui.keys.table`), read through :mod:`foley_tui.keys.keymap` by the bindings, the
help screen, the palette and config validation."""
