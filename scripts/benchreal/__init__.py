"""The real-code model benchmark (scripts/bench_real.py): pinned upstream projects, planted fixture changes,
tasks split into a tune and a held-out half, checks validated without a model by the self-check."""
