"""Mechanical changes done by refactoring engines, never retyped by a model: rename, move, change a
signature, extract a function, repair a data file's syntax. Each operation returns a ``base.Outcome``."""
