"""Step 5 — packaging: the bundle directory and archive, its report, procedural bundles and container images.

Files and how to extend: README.md beside this file.
"""
