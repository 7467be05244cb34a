"""Step 4 — the tasks: verifiable tasks with difficulty knobs, every one proven before it ships.

Files and how to extend: README.md beside this file.
"""
