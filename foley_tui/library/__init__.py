"""Library folders as sources: a folder tree auditioned in place.

``scan`` walks the tree (symlinked folders followed once, loops reported), ``metadata``
reads each file's format and embedded fields (wavinfo for WAV/BWF, tinytag for the
rest), ``ucs`` parses the Universal Category System fields, ``cache`` keeps the folder's
index under the XDG cache dir, ``folder`` turns it into the candidates of the folder's
own foley session, ``registry`` keeps the folders opened before (in the data dir),
``resume`` finds a session's folder again, and ``source`` ties them together for the
app and the command line.

Headless: never imports textual.
"""
