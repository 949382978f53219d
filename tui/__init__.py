"""devagent: a local-model agent that works inside a Git repository, with the developer in charge."""

__version__ = "0.1.0"
