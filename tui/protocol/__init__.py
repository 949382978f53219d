"""What the engine and every front end share: errors, events, proposals and decisions."""
