"""The policy: allow / ask / deny for each proposal, the hard-deny list and the preview of what a command loses."""
