"""The registry trainers pull from: publish, list, pull and gc over a directory or any fsspec URL.

Files and how to extend: README.md beside this file.
"""
