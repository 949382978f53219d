"""Helpers the tools share (edit proposals, checks of Python edits, occurrences); no tool lives here."""
