"""Step 1 — the world: blueprints, their procedural variants, and the relational schema they become.

Files and how to extend: README.md beside this file.
"""
