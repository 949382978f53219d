"""The general loop, for requests no pipeline can do: model -> one constrained call -> the gate -> its result,
until the model answers (agent.py); each reply streamed and read by modelstep.py."""
