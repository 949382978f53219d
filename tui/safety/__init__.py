"""Hostile-input primitives: paths inside the repo, literal text, shell parsing and risk, repo-config rules."""
