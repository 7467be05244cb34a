"""Step 3 — the tools: declarative specs over the schema, their OpenAPI view, the one executor, and build-time probes.

Files and how to extend: README.md beside this file.
"""
