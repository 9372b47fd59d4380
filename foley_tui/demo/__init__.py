"""The bundled demo session: its sounds' catalog and vocabulary, and the builder that stores
them as a foley session (:func:`foley_tui.demo.build.build_demo`)."""
