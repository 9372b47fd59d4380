"""The audition screen and the helpers it composes: loading, preview, dialogs and the
scene actions."""
