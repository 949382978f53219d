"""Runs a command under bubblewrap: the profile (argv), process groups, output limits, pids, sockets, status."""
