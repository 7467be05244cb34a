"""Step 2 — the data: a populated, constraint-clean SQLite state from a schema and a seed.

Files and how to extend: README.md beside this file.
"""
