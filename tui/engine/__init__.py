"""The agent engine: the session, the agent loop, its context, prompt, grounding, instructions and verification."""
