"""One session: the engine wired for one repository (session.py), its store of everything that happened
(store.py), and the check of the model options before anything opens (modelcheck.py)."""

from tui.engine.session.session import Session, git_common_dir

__all__ = ["Session", "git_common_dir"]
