"""The bundle format: a content-addressed directory (manifest, digest, archive), its versions and state export.

Files and how to extend: README.md beside this file.
"""
